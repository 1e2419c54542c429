package identity

// KeyUsesHeld is how many keys' last uses the keyring remembers.
func KeyUsesHeld(ks *Keys) int {
	ks.ring.usesMu.Lock()
	defer ks.ring.usesMu.Unlock()
	return len(ks.ring.lastUse)
}

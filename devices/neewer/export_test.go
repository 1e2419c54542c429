package neewer

// HeardName is the name a scan heard the light at mac advertise, "" if
// none (for tests of Add, which detects the model from it).
func (a *Adapter) HeardName(mac string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n := a.names[mac]; n != "" {
		return n
	}
	return a.lastNames[mac]
}

package integrations

import "context"

// SealedSecret is the saved secret of one integration, as a
// BIFROST_SECRET finds it.
type SealedSecret struct {
	Integration string // its record: "mqtt", "hass", "stt", "llm", "tts"
	Title       string // what it is called: "MQTT", "Home Assistant", "speech-to-text"
	Noun        string // what the secret is: "password", "access token", "key"
	// Problem says why the secret does not open, in the words the hub
	// shows beside it in Settings; "" when it opens.
	Problem string
}

// Opens reports whether the BIFROST_SECRET asked about opens the secret.
func (s SealedSecret) Opens() bool { return s.Problem == "" }

// sealer is an integration with a secret, as CheckSealed asks it.
type sealer interface {
	sealedSecret(ctx context.Context, st Store, box *secretBox) (SealedSecret, bool, error)
}

// sealers are the integrations that keep a secret, in the order Settings
// shows them.
var sealers = []sealer{
	mqttIntegration, hassIntegration,
	voiceIntegrations[RoleSTT], voiceIntegrations[RoleLLM], voiceIntegrations[RoleTTS],
}

// CheckSealed returns the integrations that st holds a saved secret of,
// and whether secret (BIFROST_SECRET; "" when it is not set) opens each,
// as a hub started with it would: for a database restored from a backup
// onto a hub whose secret may not be the one that sealed them. It asks
// for no admin, since it never returns a secret, only whether it opens.
// A secret too short to be a key is refused, as New refuses it.
func CheckSealed(ctx context.Context, st Store, secret string) ([]SealedSecret, error) {
	box, err := newSecretBox(secret)
	if err != nil {
		return nil, err
	}
	var out []SealedSecret
	for _, k := range sealers {
		s, ok, err := k.sealedSecret(ctx, st, box)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// CheckSecret refuses a BIFROST_SECRET that New would refuse.
func CheckSecret(secret string) error {
	_, err := newSecretBox(secret)
	return err
}

// sealedSecret opens k's saved secret under box, as the hub's start
// does; false when none is saved.
func (k *integration[S, U]) sealedSecret(ctx context.Context, st Store, box *secretBox) (SealedSecret, bool, error) {
	s, err := k.load(ctx, st)
	if err != nil || s.sealed == nil {
		return SealedSecret{}, false, err
	}
	_, problem := k.unsealed(box, s)
	return SealedSecret{Integration: k.name, Title: k.title, Noun: k.secret.noun, Problem: problem}, true, nil
}

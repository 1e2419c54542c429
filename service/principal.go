package service

import "context"

// Principal is who is calling: an API key, a logged-in user, or the hub
// itself (the command line, start-up).
type Principal struct {
	Kind  string `json:"kind"` // "key", "user", "system"
	ID    string `json:"id"`
	Name  string `json:"name"`
	Scope string `json:"scope"` // ScopeRead or ScopeControl
}

// System is the principal of the command line and of start-up work.
var System = Principal{Kind: "system", ID: "system", Name: "system", Scope: ScopeControl}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal in ctx.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// authorize checks that the caller in ctx holds scope: any principal may
// read; only a control scope may change the house.
func authorize(ctx context.Context, scope string) error {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return Errorf(EUNAUTHORIZED, "sign in or send an API key")
	}
	if scope == ScopeControl && p.Scope != ScopeControl {
		return Errorf(EFORBIDDEN, "this key has scope %q, which may only read; create a key with scope \"control\" to change the house", p.Scope)
	}
	return nil
}

// Authorize is authorize for the packages built over the service (the
// home read at once), which check the caller before they read.
func Authorize(ctx context.Context, scope string) error { return authorize(ctx, scope) }

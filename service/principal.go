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
	return &principalCtx{Context: ctx, p: p}
}

// principalCtx is a context carrying a principal, made in one allocation
// on every keyed request (context.WithValue would box the principal in a
// second one). Its value is a pointer to the principal it holds, which
// PrincipalFrom copies.
type principalCtx struct {
	context.Context
	p Principal
}

func (c *principalCtx) Value(key any) any {
	if key == (principalKey{}) {
		return &c.p
	}
	return c.Context.Value(key)
}

// PrincipalFrom returns the principal in ctx.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(*Principal)
	if !ok {
		return Principal{}, false
	}
	return *p, true
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

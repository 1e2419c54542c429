package servicetest

import (
	"testing"

	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// Identity is the keys and the accounts beside svc over db, wired as the
// hub wires them: svc keeps their audit log and hears of their changes.
// The key uses they note are written before cleanups registered earlier
// (the store) run.
func Identity(tb testing.TB, svc *service.Service, db *store.DB) (*identity.Keys, *identity.Accounts) {
	cfg := identity.Config{Store: db, Audit: svc, Events: svc.Events()}
	keys := identity.NewKeys(cfg)
	tb.Cleanup(keys.Wait)
	return keys, identity.NewAccounts(cfg, keys)
}

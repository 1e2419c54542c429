package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/bifrost-hub/bifrost/devices"
	"github.com/bifrost-hub/bifrost/identity"
	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// The keys commands open the database the server uses. SQLite's WAL
// journal and busy timeout make that safe while the server runs. The
// server keeps the keys in memory and reads them again whenever SQLite's
// data_version says another process changed the database, which it asks on
// every request, so a revoke holds from its next request on.

const keysAbout = `Manage the API keys that clients of /api/v1 send as "Authorization: Bearer bfr_…".

  bifrost keys create --name NAME [--scope read|control]   mint a key; prints it on stdout
  bifrost keys list                                        list keys (never their secrets)
  bifrost keys revoke ID_OR_PREFIX                         revoke a key by id or prefix

Run 'bifrost help keys COMMAND' for the options of one.`

func runKeys(ctx context.Context, cli CLI, args []string) error {
	help := func(w io.Writer) { fmt.Fprintln(w, "usage: bifrost keys COMMAND [arguments] [options]\n\n"+keysAbout) }
	if len(args) == 0 {
		return &usageError{err: fmt.Errorf("keys: missing COMMAND (create, list or revoke)"), print: help}
	}
	switch args[0] {
	case "create":
		return runKeysCreate(ctx, cli, args[1:])
	case "list":
		return runKeysList(ctx, cli, args[1:])
	case "revoke":
		return runKeysRevoke(ctx, cli, args[1:])
	case "-h", "-help", "--help", "help":
		return &helpRequest{print: help}
	}
	return &usageError{err: fmt.Errorf("keys: unknown command %q", args[0]), print: help}
}

func runKeysCreate(ctx context.Context, cli CLI, args []string) error {
	cfg := DefaultConfig()
	cl := newCmdline("keys create", "keys create --name NAME [--scope read|control] [options]",
		"Mint an API key and print it, and nothing else, on standard output. The key\n"+
			"is shown this once only: the database keeps just its hash. It belongs to the\n"+
			"hub itself, not to a user: only admins see and revoke it in the web UI.", adminOptions(&cfg))
	name := cl.fs.String("name", "", "`name` of the key: who or what uses it")
	scope := cl.fs.String("scope", service.ScopeControl, "`scope`: read (may only read) or control (may also change the house)")
	if _, err := cl.parse(args, cli.Getenv); err != nil {
		return err
	}
	if *name == "" {
		return cl.usageErr(fmt.Errorf("--name is required"))
	}
	logger := cfg.newLogger(cli.Stderr)
	return withIdentity(ctx, cfg, logger, func(ctx context.Context, keys *identity.Keys, _ *identity.Accounts) error {
		k, err := keys.CreateKey(ctx, *name, *scope)
		if err != nil {
			return err
		}
		fmt.Fprintln(cli.Stdout, k.Key)
		logger.Info("key created; it is shown only this once", "id", k.ID, "name", k.Name, "scope", k.Scope)
		return nil
	})
}

func runKeysList(ctx context.Context, cli CLI, args []string) error {
	cfg := DefaultConfig()
	cl := newCmdline("keys list", "keys list [options]",
		"List the API keys: id, name, the prefix that recognises a key, scope, the\n"+
			"user it belongs to, and when each was created, last used and revoked.\n"+
			"Secrets are never shown.", adminOptions(&cfg))
	if _, err := cl.parse(args, cli.Getenv); err != nil {
		return err
	}
	return withIdentity(ctx, cfg, cfg.newLogger(cli.Stderr), func(ctx context.Context, ks *identity.Keys, acc *identity.Accounts) error {
		keys, err := ks.ListKeys(ctx)
		if err != nil {
			return err
		}
		users, err := acc.ListUsers(ctx)
		if err != nil {
			return err
		}
		return writeKeyTable(cli.Stdout, keys, users)
	})
}

func writeKeyTable(w io.Writer, keys []identity.APIKey, users []identity.User) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tSCOPE\tOWNER\tCREATED\tLAST USED\tREVOKED")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%s…\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Prefix, k.Scope, ownerName(k, users),
			formatTime(&k.CreatedAt), formatTime(k.LastUsed), formatTime(k.RevokedAt))
	}
	return tw.Flush()
}

// ownerName is who k belongs to: a username, "(hub)" for a key of the
// hub's own, "(removed)" for a user who is gone.
func ownerName(k identity.APIKey, users []identity.User) string {
	if k.OwnerID == "" {
		return "(hub)"
	}
	for _, u := range users {
		if u.ID == k.OwnerID {
			return u.Username
		}
	}
	return "(removed)"
}

// formatTime shows t in local time, or "-" for never.
func formatTime(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func runKeysRevoke(ctx context.Context, cli CLI, args []string) error {
	cfg := DefaultConfig()
	cl := newCmdline("keys revoke", "keys revoke ID_OR_PREFIX [options]",
		"Revoke an API key, given its id or its prefix (as 'keys list' shows it),\n"+
			"never the whole key. A running server refuses the key from its next request on.", adminOptions(&cfg))
	rest, err := cl.parse(args, cli.Getenv, "ID_OR_PREFIX")
	if err != nil {
		return err
	}
	logger := cfg.newLogger(cli.Stderr)
	return withIdentity(ctx, cfg, logger, func(ctx context.Context, keys *identity.Keys, _ *identity.Accounts) error {
		k, err := keys.RevokeKey(ctx, rest[0])
		if err != nil {
			return err
		}
		fmt.Fprintf(cli.Stdout, "revoked %s (%s, %s…)\n", k.ID, k.Name, k.Prefix)
		return nil
	})
}

// adminOptions are the options of the commands that work on the database
// rather than run the hub.
func adminOptions(cfg *Config) []option {
	return pick(cfg.options(), "data", "log-level", "log-format")
}

// withIdentity opens the database of cfg and runs fn with the keys and
// the accounts (beside a service, which keeps their audit log) and a
// context that acts as the hub itself (the command line's principal).
func withIdentity(ctx context.Context, cfg Config, logger *slog.Logger, fn func(context.Context, *identity.Keys, *identity.Accounts) error) error {
	db, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer db.Close()
	reg := devices.NewRegistry(cfg.DeviceTimeout)
	defer reg.Close()
	svc := service.New(service.Config{Store: db, Registry: reg, Logger: logger})
	keys, acc := newIdentity(db, svc, logger)
	defer keys.Wait()
	return fn(service.WithPrincipal(ctx, service.System), keys, acc)
}

// newIdentity is the keys and the accounts over db, beside svc, which
// keeps their audit log and tells its event streams of their changes.
func newIdentity(db *store.DB, svc *service.Service, logger *slog.Logger) (*identity.Keys, *identity.Accounts) {
	cfg := identity.Config{Store: db, Audit: svc, Events: svc.Events(), Logger: logger}
	keys := identity.NewKeys(cfg)
	return keys, identity.NewAccounts(cfg, keys)
}

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"text/tabwriter"

	"github.com/bifrost-hub/bifrost/api/session"
	"github.com/bifrost-hub/bifrost/identity"
)

const usersAbout = `Manage the people who sign in to the web UI. Passwords are read from
standard input (one line), never from the command line.

  bifrost users add NAME [--admin]   add a user (the first user is always an admin)
  bifrost users passwd NAME          set a user's password; ends their sessions
  bifrost users list                 list the users

Run 'bifrost help users COMMAND' for the options of one.`

func runUsers(ctx context.Context, cli CLI, args []string) error {
	help := func(w io.Writer) {
		fmt.Fprintln(w, "usage: bifrost users COMMAND [arguments] [options]\n\n"+usersAbout)
	}
	if len(args) == 0 {
		return &usageError{err: fmt.Errorf("users: missing COMMAND (add, passwd or list)"), print: help}
	}
	switch args[0] {
	case "add":
		return runUsersAdd(ctx, cli, args[1:])
	case "passwd":
		return runUsersPasswd(ctx, cli, args[1:])
	case "list":
		return runUsersList(ctx, cli, args[1:])
	case "-h", "-help", "--help", "help":
		return &helpRequest{print: help}
	}
	return &usageError{err: fmt.Errorf("users: unknown command %q", args[0]), print: help}
}

func runUsersAdd(ctx context.Context, cli CLI, args []string) error {
	cfg := DefaultConfig()
	cl := newCmdline("users add", "users add NAME [--admin] [options] < password",
		"Add a user who can sign in to the web UI, reading the password from the first\n"+
			"line of standard input. The first user is always an admin; admins add and\n"+
			"remove users.", adminOptions(&cfg))
	admin := cl.fs.Bool("admin", false, "make the user an admin")
	rest, err := cl.parse(args, cli.Getenv, "NAME")
	if err != nil {
		return err
	}
	password, err := readPassword(cli.Stdin)
	if err != nil {
		return err
	}
	logger := cfg.newLogger(cli.Stderr)
	return withIdentity(ctx, cfg, logger, func(ctx context.Context, _ *identity.Keys, acc *identity.Accounts) error {
		u, err := acc.AddUser(ctx, rest[0], password, *admin)
		if err != nil {
			return err
		}
		logger.Info("user added", "username", u.Username, "admin", u.Admin)
		return nil
	})
}

func runUsersPasswd(ctx context.Context, cli CLI, args []string) error {
	cfg := DefaultConfig()
	cl := newCmdline("users passwd", "users passwd NAME [options] < password",
		"Set a user's password, reading it from the first line of standard input.\n"+
			"Every session of the user ends: they sign in again with the new one.", adminOptions(&cfg))
	rest, err := cl.parse(args, cli.Getenv, "NAME")
	if err != nil {
		return err
	}
	password, err := readPassword(cli.Stdin)
	if err != nil {
		return err
	}
	logger := cfg.newLogger(cli.Stderr)
	return withIdentity(ctx, cfg, logger, func(ctx context.Context, _ *identity.Keys, acc *identity.Accounts) error {
		err := acc.ChangePassword(ctx, identity.PasswordChange{User: rest[0], New: password})
		if err != nil {
			return err
		}
		logger.Info("password set; the user's sessions have ended", "username", rest[0])
		return nil
	})
}

func runUsersList(ctx context.Context, cli CLI, args []string) error {
	cfg := DefaultConfig()
	cl := newCmdline("users list", "users list [options]", "List the users of the web UI.", adminOptions(&cfg))
	if _, err := cl.parse(args, cli.Getenv); err != nil {
		return err
	}
	return withIdentity(ctx, cfg, cfg.newLogger(cli.Stderr), func(ctx context.Context, _ *identity.Keys, acc *identity.Accounts) error {
		users, err := acc.ListUsers(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(cli.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tUSERNAME\tADMIN\tCREATED")
		for _, u := range users {
			fmt.Fprintf(tw, "%s\t%s\t%t\t%s\n", u.ID, u.Username, u.Admin, formatTime(&u.CreatedAt))
		}
		return tw.Flush()
	})
}

// readPassword reads one line from r, without its line ending.
func readPassword(r io.Reader) (string, error) {
	if r == nil {
		return "", errors.New("no standard input to read the password from")
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the password: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("give the password on standard input, e.g. `bifrost users add alice < password.txt`")
	}
	return line, nil
}

// logSetupCode prints the one-time code that creates the first admin,
// while no user exists.
func (m *Main) logSetupCode(ctx context.Context) error {
	code, err := m.accounts.SetupCode(ctx)
	if err != nil {
		return fmt.Errorf("setup code: %w", err)
	}
	if code != "" {
		m.Logger.Warn("no user yet: open the web UI and create the first admin with this one-time setup code, or run `bifrost users add NAME`",
			"setup_code", code, "url", "http://"+localAddr(m.addr.String())+"/")
	}
	return nil
}

// proxyList is a comma-separated list of trusted proxies (addresses or
// CIDR prefixes), checked when set.
type proxyList string

func (v *proxyList) Set(s string) error {
	ps, err := session.ParseProxies(strings.Split(s, ","))
	if err != nil {
		return err
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	*v = proxyList(strings.Join(out, ","))
	return nil
}

func (v *proxyList) String() string { return string(*v) }

// Prefixes returns the proxies (the list was checked when set).
func (v proxyList) Prefixes() []netip.Prefix {
	ps, _ := session.ParseProxies(strings.Split(string(v), ","))
	return ps
}

// Command bifrost is the Bifrost home-automation hub: one binary that runs
// the hub (serve) and administers its data (keys, backup, restore, migrate).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
)

// version is set at build time: -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal ends the process at once
	}()
	code := Run(ctx, os.Args[1:], CLI{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.LookupEnv})
	stop()
	os.Exit(code)
}

// CLI is what a command sees of its process: its standard streams and the
// environment.
type CLI struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv Getenv

	// scanEnough, for tests, ends `neewer scan` early (see
	// neewer.ScanOptions.Enough).
	scanEnough func(mac string, radios int) bool
}

// A command is one subcommand of bifrost.
type command struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, cli CLI, args []string) error
}

// commands lists the subcommands in the order help shows them.
func commands() []command {
	return []command{
		{"serve", "run the hub (what a bare `bifrost` does)", runServe},
		{"keys", "create, list and revoke API keys", runKeys},
		{"users", "add web UI users and set their passwords", runUsers},
		{"neewer", "scan for Neewer Bluetooth lights (neewer scan)", runNeewer},
		{"androidtv", "pair the hub with an Android TV or Google TV (androidtv pair HOST)", runAndroidTV},
		{"backup", "write a consistent copy of the database to FILE", runBackup},
		{"restore", "replace the database with a backup FILE (the hub stopped)", runRestore},
		{"migrate", "apply database migrations and exit", runMigrate},
		{"healthcheck", "exit 0 when the hub at --addr answers /healthz", runHealthcheck},
		{"version", "print the version", runVersion},
		{"help", "show help for bifrost or for one command", runHelp},
	}
}

// Run runs the command line args and returns the process exit code: 0 on
// success, 1 on failure, 2 on a usage error.
func Run(ctx context.Context, args []string, cli CLI) int {
	err := dispatch(ctx, args, cli)
	var help *helpRequest
	var usage *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &help):
		help.print(cli.Stdout)
		return 0
	case errors.As(err, &usage):
		usage.printTo(cli.Stderr)
		return 2
	}
	fmt.Fprintf(cli.Stderr, "bifrost: %v\n", err)
	return 1
}

// dispatch runs the subcommand args name; with no subcommand, or with
// options only, it serves.
func dispatch(ctx context.Context, args []string, cli CLI) error {
	name := "serve"
	switch {
	case len(args) > 0 && isHelpFlag(args[0]):
		return &helpRequest{print: printHelp}
	case len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-':
		name, args = args[0], args[1:]
	}
	for _, c := range commands() {
		if c.Name == name {
			return c.Run(ctx, cli, args)
		}
	}
	return &usageError{err: fmt.Errorf("unknown command %q", name), print: func(w io.Writer) {
		fmt.Fprintln(w, "Run 'bifrost help' for the list of commands.")
	}}
}

func isHelpFlag(s string) bool {
	switch s {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

func runVersion(ctx context.Context, cli CLI, args []string) error {
	cl := newCmdline("version", "version", "Print the version of bifrost and of the Go toolchain that built it.", nil)
	if _, err := cl.parse(args, cli.Getenv); err != nil {
		return err
	}
	fmt.Fprintf(cli.Stdout, "bifrost %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

// runHelp prints the help of bifrost, or of the command named.
func runHelp(ctx context.Context, cli CLI, args []string) error {
	if len(args) == 0 || args[0] == "help" {
		return &helpRequest{print: printHelp}
	}
	return dispatch(ctx, append(args, "-h"), cli)
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// A cmdline is one command's flags (the Config options it reads and any
// flags of its own) and the help that describes them.
type cmdline struct {
	name     string // "keys create"
	synopsis string // what follows "bifrost " in the usage line
	about    string
	fs       *flag.FlagSet
	opts     []option
}

// newCmdline returns the command line of the command name, defining opts.
// Define the command's own flags on its fs before parsing.
func newCmdline(name, synopsis, about string, opts []option) *cmdline {
	fs := newFlagSet(name)
	define(fs, opts)
	return &cmdline{name: name, synopsis: synopsis, about: about, fs: fs, opts: opts}
}

// parse parses args (the environment first, then flags) and returns the
// positional arguments, which must be exactly the ones named in want.
func (c *cmdline) parse(args []string, getenv Getenv, want ...string) ([]string, error) {
	rest, err := parseArgs(c.fs, c.opts, args, getenv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, &helpRequest{print: c.printHelp}
	case err != nil:
		return nil, c.usageErr(err)
	case len(rest) > len(want):
		return nil, c.usageErr(fmt.Errorf("unexpected argument %q", rest[len(want)]))
	case len(rest) < len(want):
		return nil, c.usageErr(fmt.Errorf("missing %s", strings.Join(want[len(rest):], " ")))
	}
	return rest, nil
}

func (c *cmdline) usageErr(err error) error {
	return &usageError{err: fmt.Errorf("%s: %w", c.name, err), print: c.printUsage}
}

func (c *cmdline) printUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: bifrost %s\nRun 'bifrost help %s' for its options.\n", c.synopsis, c.name)
}

func (c *cmdline) printHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: bifrost %s\n\n%s\n", c.synopsis, c.about)
	if hasFlags(c.fs) {
		fmt.Fprintln(w, "\nOptions:")
		printFlags(w, c.fs, c.opts)
	}
}

// helpRequest is returned when a command is asked for its help.
type helpRequest struct {
	print func(io.Writer)
}

func (h *helpRequest) Error() string { return "help requested" }

// usageError is a command line that cannot be run as given.
type usageError struct {
	err   error
	print func(io.Writer)
}

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

func (u *usageError) printTo(w io.Writer) {
	fmt.Fprintf(w, "bifrost: %v\n", u.err)
	u.print(w)
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// printFlags describes every flag of fs, with the environment variable of
// those that are options and the default of each.
func printFlags(w io.Writer, fs *flag.FlagSet, opts []option) {
	byName := map[string]option{}
	for _, o := range opts {
		byName[o.Name] = o
	}
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  --%s\n", strings.TrimSpace(f.Name+" "+arg))
		fmt.Fprintf(w, "        %s\n", usage)
		var notes []string
		if o, ok := byName[f.Name]; ok {
			notes = append(notes, "env "+o.Env)
			if o.Secret {
				notes = append(notes, "or "+o.Env+"_FILE")
			}
		}
		if f.DefValue != "" && f.DefValue != "false" {
			notes = append(notes, "default "+f.DefValue)
		}
		if len(notes) > 0 {
			fmt.Fprintf(w, "        (%s)\n", strings.Join(notes, ", "))
		}
	})
}

// printHelp prints the help of bifrost as a whole.
func printHelp(w io.Writer) {
	fmt.Fprint(w, `Bifrost is a headless home-automation hub.

usage:
  bifrost [serve] [options]
  bifrost COMMAND [arguments] [options]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.Name, c.Summary)
	}
	fmt.Fprint(w, "\nOptions (each one a flag and an environment variable; a flag wins):\n")
	cfg := DefaultConfig()
	fs := newFlagSet("bifrost")
	opts := cfg.options()
	define(fs, opts)
	printFlags(w, fs, opts)
	fmt.Fprint(w, "\nRun 'bifrost help COMMAND' for the arguments and options of one command.\n")
}

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/bifrost-hub/bifrost/service"
	"github.com/bifrost-hub/bifrost/store"
)

// runWithStdin runs a command line in-process with stdin as its input.
func runWithStdin(stdin string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, CLI{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Getenv: env{}.lookup})
	return code, out.String(), errOut.String()
}

func TestUsersCommands(t *testing.T) {
	data := t.TempDir()
	if code, _, errOut := runWithStdin("first password\n", "users", "add", "alice", "--data", data); code != 0 {
		t.Fatalf("users add: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runWithStdin("second password\r\n", "users", "add", "bob", "--data", data); code != 0 {
		t.Fatalf("users add bob: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runWithStdin("", "users", "add", "carol", "--data", data); code != 1 || !strings.Contains(errOut, "standard input") {
		t.Errorf("users add without a password: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runWithStdin("short\n", "users", "add", "carol", "--data", data); code != 1 || !strings.Contains(errOut, "at least 8") {
		t.Errorf("users add with a short password: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runWithStdin("x\n", "users", "add", "--data", data); code != 2 || !strings.Contains(errOut, "missing NAME") {
		t.Errorf("users add without NAME: exit %d: %s", code, errOut)
	}
	code, out, _ := runWithStdin("", "users", "list", "--data", data)
	if code != 0 || !hasLine(out, "alice", "true") || !hasLine(out, "bob", "false") {
		t.Fatalf("users list (the first user is an admin, the second is not):\n%s", out)
	}
	if code, _, errOut := runWithStdin("a new password\n", "users", "passwd", "bob", "--data", data); code != 0 {
		t.Fatalf("users passwd: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runWithStdin("a new password\n", "users", "passwd", "nobody", "--data", data); code != 1 || !strings.Contains(errOut, `no user "nobody"`) {
		t.Errorf("users passwd nobody: exit %d: %s", code, errOut)
	}

	ctx := context.Background()
	cfg := DefaultConfig()
	cfg.DataDir = data
	db, err := store.Open(ctx, cfg.DBPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, acc := newIdentity(db, service.New(service.Config{Store: db}), nil)
	if _, err := acc.Login(ctx, "192.0.2.1", "bob", "second password"); service.ErrorCode(err) != service.EUNAUTHORIZED {
		t.Errorf("the old password still works: %v", err)
	}
	if _, err := acc.Login(ctx, "192.0.2.1", "bob", "a new password"); err != nil {
		t.Errorf("the new password does not work: %v", err)
	}
	if code, _ := acc.SetupCode(ctx); code != "" {
		t.Errorf("a setup code is issued though users exist")
	}
}

// hasLine reports whether out has a line holding every one of words.
func hasLine(out string, words ...string) bool {
	for line := range strings.SplitSeq(out, "\n") {
		fields := strings.Fields(line)
		all := true
		for _, w := range words {
			found := false
			for _, f := range fields {
				found = found || f == w
			}
			all = all && found
		}
		if all {
			return true
		}
	}
	return false
}

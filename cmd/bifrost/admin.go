package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// healthcheckTimeout bounds the whole health check.
const healthcheckTimeout = 3 * time.Second

func runBackup(ctx context.Context, cli CLI, args []string) error {
	cfg := DefaultConfig()
	cl := newCmdline("backup", "backup FILE [options]",
		"Write a consistent copy of the database to FILE, which must not exist yet.\n"+
			"The hub may keep running meanwhile: the copy is made with VACUUM INTO.", adminOptions(&cfg))
	rest, err := cl.parse(args, cli.Getenv, "FILE")
	if err != nil {
		return err
	}
	if _, err := os.Stat(cfg.DBPath()); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup: there is no database at %s; check --data", cfg.DBPath())
	}
	dest, err := filepath.Abs(rest[0])
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	logger := cfg.newLogger(cli.Stderr)
	db, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Backup(ctx, dest); err != nil {
		return err
	}
	fi, err := os.Stat(dest)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	logger.Info("backup written", "file", dest, "bytes", fi.Size())
	return nil
}

func runMigrate(ctx context.Context, cli CLI, args []string) error {
	cfg := DefaultConfig()
	cl := newCmdline("migrate", "migrate [options]",
		"Create the database if needed, apply every pending migration, and exit.\n"+
			"(serve does the same at start; this is for doing it ahead of time.)", adminOptions(&cfg))
	if _, err := cl.parse(args, cli.Getenv); err != nil {
		return err
	}
	logger := cfg.newLogger(cli.Stderr)
	db, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer db.Close()
	v, err := db.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	logger.Info("database is up to date", "path", cfg.DBPath(), "schema_version", v)
	return nil
}

func runHealthcheck(ctx context.Context, cli CLI, args []string) error {
	cfg := DefaultConfig()
	cl := newCmdline("healthcheck", "healthcheck [--addr host:port]",
		"Ask the hub listening on --addr for /healthz; exit 0 when it answers 200 OK\n"+
			"within 3s, 1 otherwise. A wildcard host (0.0.0.0, ::) means this machine.\n"+
			"The container image uses it as its HEALTHCHECK.", pick(cfg.options(), "addr"))
	if _, err := cl.parse(args, cli.Getenv); err != nil {
		return err
	}
	if err := checkAddr(cfg.Addr); err != nil {
		return cl.usageErr(fmt.Errorf("addr: %w", err))
	}
	return healthcheck(ctx, "http://"+localAddr(cfg.Addr)+"/healthz")
}

// healthcheck GETs url and wants 200 OK.
func healthcheck(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, healthcheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s", url, resp.Status)
	}
	return nil
}

// localAddr turns a listen address into one to dial on this machine: a
// wildcard or empty host becomes the loopback address.
func localAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return net.JoinHostPort(host, port)
}

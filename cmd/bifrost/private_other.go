//go:build !unix

package main

import "log/slog"

// restrictUmask does nothing: this system has no umask.
func restrictUmask() {}

// warnExposed does nothing: this system's file modes do not say who else
// may read a file.
func warnExposed(*slog.Logger, string) {}

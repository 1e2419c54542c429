//go:build !linux

package main

// releaseStartPages does nothing where there is no MADV_PAGEOUT.
func releaseStartPages() {}

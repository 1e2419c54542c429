package service

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"strconv"
	"sync"
)

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewID returns a random id with a readable prefix, e.g. "rm_k3j9x0c2ab4q".
func NewID(prefix string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return prefix + "_" + idEncoding.EncodeToString(b)
}

// parallel runs fn(0…n-1) concurrently and waits.
func parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { fn(i) })
	}
	wg.Wait()
}

// wrapDevice names the device in an adapter error; nil stays nil.
func wrapDevice(name string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return aboutf(EUNREACHABLE, "%s: request cancelled", name)
	}
	return deviceError(name, err)
}

func boolText(b bool) string { return strconv.FormatBool(b) }
func itoa(i int) string      { return strconv.Itoa(i) }

//go:build !linux

package mqtt

const quickAckSupported = false

func setQuickAck(uintptr) {}

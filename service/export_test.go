package service

// WaitArtwork waits for the cover-art fetches under way to finish.
func WaitArtwork(s *Service) { s.art.Wait() }

// WrapDeviceForTest is what the hub makes of a device's error.
func WrapDeviceForTest(name string, err error) error { return deviceError(name, err) }

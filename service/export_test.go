package service

// WaitArtwork waits for the cover-art fetches under way to finish.
func WaitArtwork(s *Service) { s.art.Wait() }

// WrapDeviceForTest is what the hub makes of a device's error.
func WrapDeviceForTest(name string, err error) error { return deviceError(name, err) }

// UndoHeld is how many callers' last changes undo holds.
func UndoHeld(s *Service) int {
	s.undoMu.Lock()
	defer s.undoMu.Unlock()
	return len(s.undo)
}

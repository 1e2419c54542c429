package service

// WaitArtwork waits for the cover-art fetches under way to finish.
func WaitArtwork(s *Service) { s.art.Wait() }

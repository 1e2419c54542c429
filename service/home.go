package service

import (
	"context"
	"sync"
)

// Home returns one snapshot of the whole house. The parts are read in
// parallel; each device read is bounded by the read timeout.
func (s *Service) Home(ctx context.Context) (Home, error) {
	if err := authorize(ctx, ScopeRead); err != nil {
		return Home{}, err
	}
	var h Home
	var mu sync.Mutex
	var first error
	keep := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil && first == nil {
			first = err
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { var err error; h.Rooms, err = s.ListRooms(ctx); keep(err) })
	wg.Go(func() { var err error; h.Lights, err = s.ListLights(ctx); keep(err) })
	wg.Go(func() { var err error; h.Scenes, err = s.ListScenes(ctx); keep(err) })
	wg.Go(func() { var err error; h.Media, err = s.ListMedia(ctx); keep(err) })
	wg.Go(func() { var err error; h.Power, err = s.ListPower(ctx); keep(err) })
	wg.Go(func() { var err error; h.Remotes, err = s.ListRemotes(ctx); keep(err) })
	wg.Go(func() { var err error; h.Sensors, err = s.ListSensors(ctx); keep(err) })
	wg.Wait()
	return h, first
}

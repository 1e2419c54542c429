package service

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestBusCloseEndsSubscriptions(t *testing.T) {
	b := NewBus()
	ch, stop := b.Subscribe()
	b.Publish(Event{Type: "light"})
	if e := <-ch; e.Type != "light" {
		t.Fatalf("got %+v", e)
	}
	b.Close()
	select {
	case _, ok := <-ch:
		if ok {
			t.Fatal("event after Close")
		}
	case <-time.After(time.Second):
		t.Fatal("subscription still open after Close")
	}
	stop() // harmless after Close
	late, _ := b.Subscribe()
	if _, ok := <-late; ok {
		t.Fatal("a subscription after Close stays open")
	}
	b.Publish(Event{Type: "light"}) // no panic on closed channels
}

func TestBusSlowSubscriberGetsTheLatestOfEachChange(t *testing.T) {
	b := NewBus()
	ch, stop := b.Subscribe()
	defer stop()
	done := make(chan struct{})
	go func() {
		for i := range 1000 {
			b.Publish(Event{Type: "light", ID: "l" + strconv.Itoa(i%10), Action: "changed", Data: i})
		}
		b.Publish(Event{Type: "scene", ID: "s1", Action: "deleted"})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a subscriber that never reads blocked the publisher")
	}
	// Now read: each light's last value must come, and the deletion.
	last := map[string]int{}
	for len(last) < 10 || last["deleted"] == 0 {
		select {
		case e := <-ch:
			if e.Action == "deleted" {
				last["deleted"] = 1
				continue
			}
			last[e.ID] = e.Data.(int)
		case <-time.After(10 * time.Second):
			t.Fatalf("events missing; have %v", last)
		}
	}
	for i := range 10 {
		if want := 990 + i; last["l"+strconv.Itoa(i)] != want {
			t.Errorf("l%d ended at %d; want %d", i, last["l"+strconv.Itoa(i)], want)
		}
	}
}

func TestBusOverflowingSubscriberIsToldToResync(t *testing.T) {
	b := NewBus()
	ch, stop := b.Subscribe()
	defer stop()
	// The channel's buffer fills, the pump holds one event, and the rest
	// overflow the queue.
	for i := range maxPending + subscriberBuffer + 10 {
		b.Publish(Event{Type: "scene", ID: "s" + strconv.Itoa(i), Action: "created"})
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-ch:
			if e.Type == ResyncEvent {
				return
			}
		case <-deadline:
			t.Fatal("no resync event")
		}
	}
}

// TestKeysHearNothingOfTheHubsManagement: a key's subscription is told of
// the house, never of keys, kiosks or pairing (people's), and ends when
// that key is revoked; a person hears all.
func TestKeysHearNothingOfTheHubsManagement(t *testing.T) {
	s := &Service{events: NewBus()}
	key := WithPrincipal(context.Background(), Principal{Kind: "key", ID: "key_1", Scope: ScopeRead})
	person := WithPrincipal(context.Background(), Principal{Kind: "user", ID: "u1", Scope: ScopeControl})
	keyCh, stopKey, err := s.Subscribe(key)
	if err != nil {
		t.Fatal(err)
	}
	defer stopKey()
	personCh, stopPerson, _ := s.Subscribe(person)
	defer stopPerson()
	for _, typ := range []string{"kiosk", "enrollment", "key", "light"} {
		s.events.Publish(Event{Type: typ, ID: "x", Action: "changed"})
	}
	s.events.Publish(Event{Type: "key", ID: "key_1", Action: "revoked"})
	var heard []string
	for e := range keyCh {
		heard = append(heard, e.Type)
	}
	if strings.Join(heard, " ") != "light" {
		t.Errorf("the key heard %q; want only the light, then its stream ends", heard)
	}
	heard = nil
	for range 5 {
		heard = append(heard, (<-personCh).Type)
	}
	if strings.Join(heard, " ") != "kiosk enrollment key light key" {
		t.Errorf("a person heard %q", heard)
	}
}

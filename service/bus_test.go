package service

import (
	"strconv"
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

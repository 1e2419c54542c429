package service

import (
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

func TestBusSlowSubscriberLosesEvents(t *testing.T) {
	b := NewBus()
	ch, stop := b.Subscribe()
	defer stop()
	done := make(chan struct{})
	go func() {
		for range 1000 {
			b.Publish(Event{Type: "light"})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("a subscriber that never reads blocked the publisher")
	}
	if len(ch) == 0 {
		t.Fatal("no events buffered")
	}
}

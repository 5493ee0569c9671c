package clock

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestFakeFiresTimersInOrderOnlyWhenAdvanced(t *testing.T) {
	f := NewFake()
	late := f.NewTimer(5 * time.Minute)
	early := f.NewTimer(10 * time.Second)
	select {
	case <-early.C():
		t.Fatal("timer fired before Advance")
	default:
	}
	f.Advance(10 * time.Second)
	if at := <-early.C(); !at.Equal(Epoch.Add(10 * time.Second)) {
		t.Fatalf("early fired at %v", at)
	}
	if f.Pending() != 1 {
		t.Fatalf("pending = %d, want 1", f.Pending())
	}
	if !late.Stop() {
		t.Fatal("Stop of an armed timer returned false")
	}
	f.Advance(10 * time.Minute)
	select {
	case <-late.C():
		t.Fatal("a stopped timer fired")
	default:
	}
	if got := f.Now(); !got.Equal(Epoch.Add(10*time.Minute + 10*time.Second)) {
		t.Fatalf("now = %v", got)
	}
}

func TestFakeZeroDurationFiresAtOnce(t *testing.T) {
	f := NewFake()
	select {
	case <-f.After(0):
	default:
		t.Fatal("After(0) did not fire at once")
	}
}

func TestAdvanceWhenDueWaitsForTheTimer(t *testing.T) {
	f := NewFake()
	armed := make(chan (<-chan time.Time))
	go func() { armed <- f.After(100 * time.Millisecond) }()
	f.AdvanceWhenDue(100*time.Millisecond, 5*time.Second)
	select {
	case <-<-armed:
	default:
		t.Fatal("the timer armed concurrently did not fire")
	}
}

// Against a daemon in another process an advance is a real wait (an admission expires after five
// minutes); Ctrl-C must still end it at once.
func TestRealAdvanceEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error)
	go func() { ended <- AdvanceContext(ctx, RealAdvancer(), time.Hour) }()
	cancel()
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("an interrupted advance returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an advance of an hour of real time did not end with its context")
	}
}

// A virtual clock moves at once, whatever the context.
func TestAdvanceContextMovesAVirtualClock(t *testing.T) {
	f := NewFake()
	if err := AdvanceContext(context.Background(), f, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := f.Now(); !got.Equal(Epoch.Add(5 * time.Minute)) {
		t.Fatalf("now = %v", got)
	}
}

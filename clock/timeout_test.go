package clock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/clock"
)

// TestWithTimeoutEndsOnItsClock: on a Fake clock the context ends when the clock is moved past the
// bound, never before, whatever the wall clock does; on the wall clock it is a deadline.
func TestWithTimeoutEndsOnItsClock(t *testing.T) {
	f := clock.NewFake()
	ctx, cancel := clock.WithTimeout(context.Background(), f, time.Second)
	defer cancel()
	f.Advance(999 * time.Millisecond)
	if ctx.Err() != nil {
		t.Fatalf("ended before its bound: %v", ctx.Err())
	}
	f.Advance(time.Millisecond)
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("ended with %v", ctx.Err())
	}

	real, cancelReal := clock.WithTimeout(context.Background(), clock.Real(), time.Hour)
	defer cancelReal()
	if _, ok := real.Deadline(); !ok {
		t.Fatal("on the wall clock the context carries no deadline")
	}
}

// TestWithTimeoutCancelLeavesNothingRunning: once cancel returns, the goroutine that watched a
// Fake clock's timer has ended and the timer is stopped.
func TestWithTimeoutCancelLeavesNothingRunning(t *testing.T) {
	f := clock.NewFake()
	_, cancel := clock.WithTimeout(context.Background(), f, time.Second)
	cancel()
	if n := f.Pending(); n != 0 {
		t.Fatalf("%d timers still pending after cancel", n)
	}
}

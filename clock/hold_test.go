package clock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/clock"
)

// TestAdvanceWaitsForTheHolds: a goroutine that has not armed its timer yet holds the clock; the
// advance that comes meanwhile waits and then finds the timer, instead of passing its instant.
func TestAdvanceWaitsForTheHolds(t *testing.T) {
	f := clock.NewFake()
	hold := clock.HoldFor(f)
	proceed := make(chan struct{})
	fired := make(chan error, 1)
	go func() {
		<-proceed // a goroutine the scheduler has not run yet
		fired <- clock.Sleep(clock.WithHold(context.Background(), hold), f, time.Second)
	}()
	advanced := make(chan struct{})
	go func() {
		f.Advance(time.Second)
		close(advanced)
	}()
	if f.Held() != 1 {
		t.Fatalf("%d holds, want 1", f.Held())
	}
	close(proceed)
	<-advanced
	if err := <-fired; err != nil {
		t.Fatalf("the sleep armed before the advance did not end with it: %v", err)
	}
	if got := f.Now().Sub(clock.Epoch); got != time.Second {
		t.Fatalf("the clock moved %v, want 1s", got)
	}
}

func TestReleaseCountsOnce(t *testing.T) {
	f := clock.NewFake()
	a, b := clock.HoldFor(f), clock.HoldFor(f)
	a.Release()
	a.Release()
	if f.Held() != 1 {
		t.Fatalf("%d holds after one Hold was released twice, want 1", f.Held())
	}
	b.Release()
	f.Advance(time.Second) // nothing holds it: it does not wait
	if f.Held() != 0 || f.Now().Sub(clock.Epoch) != time.Second {
		t.Fatalf("held %d, moved %v", f.Held(), f.Now().Sub(clock.Epoch))
	}
}

// TestAHeldAdvanceEndsWithItsContext: a holder that never releases cannot hang an advance that a
// context bounds; the clock has not moved.
func TestAHeldAdvanceEndsWithItsContext(t *testing.T) {
	f := clock.NewFake()
	hold := clock.HoldFor(f)
	defer hold.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.AdvanceContext(ctx, time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("AdvanceContext = %v, want context.Canceled", err)
	}
	if !f.Now().Equal(clock.Epoch) {
		t.Fatalf("the clock moved to %v while held", f.Now())
	}
}

func TestHoldsOnOtherClocksHoldNothing(t *testing.T) {
	h := clock.HoldFor(clock.Real())
	h.Release()
	var none *clock.Hold
	none.Release()
	clock.Armed(context.Background()) // no Hold in it: nothing to release
	if err := clock.Sleep(context.Background(), clock.Real(), 0); err != nil {
		t.Fatal(err)
	}
}

// TestSleepReleasesEvenWhenItDoesNotWait: a zero sleep arms nothing and must not keep the clock held.
func TestSleepReleasesEvenWhenItDoesNotWait(t *testing.T) {
	f := clock.NewFake()
	hold := clock.HoldFor(f)
	if err := clock.Sleep(clock.WithHold(context.Background(), hold), f, 0); err != nil {
		t.Fatal(err)
	}
	if f.Held() != 0 {
		t.Fatalf("%d holds after a zero sleep", f.Held())
	}
}

// TestArmedReleasesEveryHoldTheContextCarries: one armed timer can be what two holders wait for.
func TestArmedReleasesEveryHoldTheContextCarries(t *testing.T) {
	f := clock.NewFake()
	a, b := clock.HoldFor(f), clock.HoldFor(f)
	ctx := clock.WithHold(clock.WithHold(context.Background(), a), b)
	only := clock.WithHold(context.Background(), a)
	clock.Armed(ctx)
	if f.Held() != 0 {
		t.Fatalf("%d holds after Armed", f.Held())
	}
	clock.Armed(only) // released already: nothing changes
	if f.Held() != 0 {
		t.Fatalf("%d holds", f.Held())
	}
}

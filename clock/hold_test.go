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

// TestAnAdvanceWaitsForWhatItWoke: the sleeper of SleepHeld holds the clock from its wake until it
// has taken the wake up; the advance that woke it returns only then, so the step after the advance
// finds what the wake did.
func TestAnAdvanceWaitsForWhatItWoke(t *testing.T) {
	f := clock.NewFake()
	woke := make(chan *clock.Hold)
	proceed := make(chan struct{})
	var done bool // what the wake does; the advance's return publishes it
	go func() {
		h, err := clock.SleepHeld(context.Background(), f, time.Second)
		if err != nil {
			t.Errorf("SleepHeld: %v", err)
		}
		woke <- h
		<-proceed // a sleeper the scheduler is slow to run on after its wake
		done = true
		h.Release()
	}()
	awaitArmed(f, 1)
	advanced := make(chan struct{})
	go func() {
		f.Advance(2 * time.Second)
		close(advanced)
	}()
	<-woke
	select {
	case <-advanced:
		t.Fatal("the advance returned before the sleeper took its wake up")
	default:
	}
	if f.Held() != 1 {
		t.Fatalf("%d holds after the wake, want the sleeper's 1", f.Held())
	}
	close(proceed)
	<-advanced
	if !done {
		t.Fatal("the advance returned without what the wake did")
	}
}

// TestASleepHeldThatEndsWithItsContextHoldsNothing: a sleeper cancelled before its timer fires
// holds nothing, and the timer is gone; on the wall clock the Hold is the zero one.
func TestASleepHeldThatEndsWithItsContextHoldsNothing(t *testing.T) {
	f := clock.NewFake()
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	go func() {
		h, err := clock.SleepHeld(ctx, f, time.Second)
		h.Release()
		ended <- err
	}()
	awaitArmed(f, 1)
	cancel()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("SleepHeld = %v, want context.Canceled", err)
	}
	if f.Pending() != 0 || f.Held() != 0 {
		t.Fatalf("%d timers and %d holds left", f.Pending(), f.Held())
	}
	f.Advance(time.Second) // nothing holds it: it does not wait
	h, err := clock.SleepHeld(context.Background(), clock.Real(), 0)
	if err != nil {
		t.Fatal(err)
	}
	h.Release()
}

// awaitArmed waits until n timers are armed on f.
func awaitArmed(f *clock.Fake, n int) {
	for {
		changed := f.Changed()
		if f.Pending() >= n {
			return
		}
		<-changed
	}
}

// TestAHandoffHoldsOnlyWhileItsConsumerIsThere: a Hold given to a consumer that waits for the
// producer is kept until the consumer releases it; one given while the consumer waits on
// something else (Away) is let go at once, and Away lets go of what was kept.
func TestAHandoffHoldsOnlyWhileItsConsumerIsThere(t *testing.T) {
	f := clock.NewFake()
	var x clock.Handoff
	x.Give(clock.HoldFor(f))
	if f.Held() != 1 {
		t.Fatalf("%d holds after a Give to a consumer that is there, want 1", f.Held())
	}
	x.Release()
	if f.Held() != 0 {
		t.Fatalf("%d holds after the consumer released, want 0", f.Held())
	}
	x.Give(clock.HoldFor(f))
	x.Away()
	if f.Held() != 0 {
		t.Fatalf("%d holds after the consumer went away, want 0", f.Held())
	}
	x.Give(clock.HoldFor(f))
	if f.Held() != 0 {
		t.Fatalf("%d holds after a Give while the consumer is away, want 0", f.Held())
	}
	x.Back()
	x.Give(clock.HoldFor(f))
	if f.Held() != 1 {
		t.Fatalf("%d holds after a Give once the consumer is back, want 1", f.Held())
	}
	x.Release()
	var none *clock.Handoff // no consumer: what is given is let go
	none.Give(clock.HoldFor(f))
	none.Away()
	none.Back()
	none.Release()
	if f.Held() != 0 {
		t.Fatalf("%d holds after a Give to no consumer, want 0", f.Held())
	}
	if clock.HandoffFrom(clock.WithHandoff(context.Background(), &x)) != &x || clock.HandoffFrom(context.Background()) != nil {
		t.Fatal("HandoffFrom does not return what WithHandoff put in")
	}
}

// Package clock is the injected time source of wirecheck. Every protocol timer in the reference
// sides reads a Clock, so the catalog runs in process on a Fake clock that a scenario's `advance`
// step moves, and in real time against a Runtime in another process.
package clock

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Clock is what timers read. Real() is the wall clock; NewFake() is moved by Advance.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has elapsed.
	After(d time.Duration) <-chan time.Time
	// NewTimer returns a stoppable timer.
	NewTimer(d time.Duration) Timer
}

// Timer is a stoppable one-shot timer.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// Real returns the wall clock.
func Real() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (realClock) NewTimer(d time.Duration) Timer         { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }

// Fake is a virtual clock. Time moves only through Advance, which fires every timer whose deadline
// it passes, in deadline order.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*fakeTimer
	changed chan struct{} // closed and replaced whenever a timer is added
	holds   int           // Holds not released (hold.go)
	unheld  chan struct{} // closed when holds falls to 0
}

// Epoch is where every Fake clock starts: a fixed instant, so runs are reproducible.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// NewFake returns a virtual clock at Epoch.
func NewFake() *Fake { return &Fake{now: Epoch, changed: make(chan struct{})} }

func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *Fake) After(d time.Duration) <-chan time.Time { return f.NewTimer(d).C() }

func (f *Fake) NewTimer(d time.Duration) Timer { return f.newTimer(d, false) }

// newTimer arms a timer; one that holds takes a Hold when an advance fires it (SleepHeld).
func (f *Fake) newTimer(d time.Duration, holds bool) *fakeTimer {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{clock: f, at: f.now.Add(d), c: make(chan time.Time, 1), holds: holds}
	if d <= 0 {
		t.fired = true
		t.c <- f.now
		return t
	}
	f.timers = append(f.timers, t)
	close(f.changed)
	f.changed = make(chan struct{})
	return t
}

// Advance moves the clock forward by d, firing due timers in order, once nothing holds the clock
// (hold.go).
func (f *Fake) Advance(d time.Duration) { _ = f.AdvanceContext(context.Background(), d) }

// AdvanceContext is Advance that gives up waiting for the holds when ctx ends; it then returns
// ctx's error. Ended before the move, it has not moved the clock; ended after it, it has (and a
// sleeper woken by SleepHeld may still be taking up its wake).
func (f *Fake) AdvanceContext(ctx context.Context, d time.Duration) error {
	if err := f.lockUnheld(ctx); err != nil {
		return err
	}
	woke := f.advanceLocked(d)
	f.mu.Unlock()
	if !woke {
		return nil
	}
	// A SleepHeld sleeper holds the clock from its wake until what it does on waking is in
	// place: the advance returns once it is, so the step after it finds the wake's consequences.
	if err := f.lockUnheld(ctx); err != nil {
		return err
	}
	f.mu.Unlock()
	return nil
}

// advanceLocked moves the clock and fires the timers due; it reports whether a SleepHeld timer
// fired (and took its Hold).
func (f *Fake) advanceLocked(d time.Duration) (woke bool) {
	target := f.now.Add(d)
	sort.SliceStable(f.timers, func(i, j int) bool { return f.timers[i].at.Before(f.timers[j].at) })
	keep := f.timers[:0]
	for _, t := range f.timers {
		if !t.at.After(target) {
			f.now = t.at
			t.fired = true
			if t.holds {
				t.woke = f.holdLocked()
				woke = true
			}
			t.c <- t.at
			continue
		}
		keep = append(keep, t)
	}
	f.timers = keep
	f.now = target
	return woke
}

// Pending returns the number of armed timers; WaitForTimers blocks until at least n are armed.
// Tests use them to advance only once the code under test is waiting.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// Changed returns a channel closed the next time a timer is armed.
func (f *Fake) Changed() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed
}

type fakeTimer struct {
	clock *Fake
	at    time.Time
	c     chan time.Time
	fired bool
	holds bool  // SleepHeld's: firing takes woke
	woke  *Hold // set before the fire is sent on c
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	f := t.clock
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.fired {
		return false
	}
	for i, other := range f.timers {
		if other == t {
			f.timers = append(f.timers[:i], f.timers[i+1:]...)
			return true
		}
	}
	return false
}

// Advancer is a Clock that a scenario's `advance` step can move. For the wall clock, Advance waits.
type Advancer interface {
	Clock
	Advance(d time.Duration)
}

// ContextAdvancer is an Advancer whose advance may be a long wait that a context cuts short.
type ContextAdvancer interface {
	Advancer
	// AdvanceContext advances d, or less if ctx ends first; then it returns ctx's error.
	AdvanceContext(ctx context.Context, d time.Duration) error
}

// AdvanceContext advances a by d. Against the wall clock that is a real wait (five minutes for an
// admission's expiry), which ends with ctx's error when ctx ends first; a virtual clock advances
// at once.
func AdvanceContext(ctx context.Context, a Advancer, d time.Duration) error {
	if ca, ok := a.(ContextAdvancer); ok {
		return ca.AdvanceContext(ctx, d)
	}
	a.Advance(d)
	return nil
}

// IsReal reports whether a is the wall clock (RealAdvancer): an advance there is a wait, and the
// peer's timers run whether or not anyone advances them.
func IsReal(a Advancer) bool { _, ok := a.(realAdvancer); return ok }

// RealAdvancer is the wall clock whose Advance simply waits d: what `advance` means against a
// Runtime in another process. Its AdvanceContext ends the wait when the context does.
func RealAdvancer() ContextAdvancer { return realAdvancer{} }

type realAdvancer struct{ realClock }

func (a realAdvancer) Advance(d time.Duration) { _ = a.AdvanceContext(context.Background(), d) }

func (realAdvancer) AdvanceContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// AdvanceWhenDue waits, for at most wait (counted as WaitDue counts it), until some armed timer falls due within d,
// then advances d. It moves time only once the code under test is waiting on it, which removes
// the race between "the Runtime arms its settlement timer" and "the scenario advances the clock".
func (f *Fake) AdvanceWhenDue(d, wait time.Duration) {
	f.WaitDue(d, wait)
	f.Advance(d)
}

// WaitDue waits until some armed timer falls due within d of now, for at most wait, and reports
// whether one did. Giving up takes both wait of real time and a tenth of wait in DueTick ticks
// that this goroutine received (100 for a second): on a machine that starves the process of CPU
// the code under test is as slow on its way to arming its timer as this goroutine is to run, so
// the wait stretches with it (to ten times wait when the process runs only every 10 DueTicks),
// where a wall-clock bound alone would run out first. Unloaded, it is wait of real time.
func (f *Fake) WaitDue(d, wait time.Duration) bool {
	start := time.Now()
	tick := time.NewTicker(DueTick)
	defer tick.Stop()
	turns, minTurns := 0, int(wait/DueTick/10)
	for {
		f.mu.Lock()
		limit := f.now.Add(d)
		due := false
		for _, t := range f.timers {
			if !t.at.After(limit) {
				due = true
				break
			}
		}
		changed := f.changed
		f.mu.Unlock()
		if due {
			return true
		}
		if time.Since(start) >= wait && turns >= minTurns {
			return false
		}
		select {
		case <-changed:
		case <-tick.C: // ticks missed while this goroutine did not run are not counted
			turns++
		}
	}
}

// DueTick is the tick WaitDue counts the turns of its goroutine in.
const DueTick = time.Millisecond

// WithTimeout is context.WithTimeout on c: the context ends when a timer of d on c fires. On the
// wall clock it is context.WithTimeout itself, with no goroutine: a peer bounds every frame it
// writes with one, and a goroutine per frame was a hand-off per frame on a busy machine. On
// another clock a goroutine waits for the timer; the cancel function returns only once it has
// ended, so a caller that defers it leaves nothing running.
func WithTimeout(parent context.Context, c Clock, d time.Duration) (context.Context, context.CancelFunc) {
	switch c.(type) {
	case realClock, realAdvancer:
		return context.WithTimeout(parent, d)
	}
	ctx, cancel := context.WithCancel(parent)
	t := c.NewTimer(d)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		select {
		case <-t.C():
			cancel()
		case <-ctx.Done():
			t.Stop()
		}
	}()
	return ctx, func() { cancel(); <-ended }
}

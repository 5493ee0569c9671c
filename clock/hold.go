package clock

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Holds close one race of a virtual clock. Code that, on a frame, starts a goroutine which arms
// the timers it then waits on races the step that advances the clock next: when the goroutine
// is slow to run (a loaded machine), the advance passes the instant first and the timer, armed
// afterwards, falls due a whole step late. The starter takes a Hold before it starts the
// goroutine; the goroutine releases it once its timers are armed, just before it blocks (Armed),
// and at the latest when it ends. A Fake clock advances only while nothing holds it.
//
// A Hold must be released before its holder waits for anything that takes an advance to
// happen, or the advance waits HoldGuard of real time and then moves anyway.

// Hold keeps a Fake clock from advancing until Release. The zero Hold, and nil, hold nothing.
type Hold struct {
	f    *Fake
	once sync.Once
}

// HoldGuard is how long an advance waits for the holds at most, in real time: only a holder
// that forgot to release (a bug) makes it wait so long, and the clock then moves anyway rather
// than hang the scenario.
const HoldGuard = time.Minute

// HoldFor holds c if it is a Fake clock; any other clock is not held, and its Hold holds nothing.
func HoldFor(c Clock) *Hold {
	f, ok := c.(*Fake)
	if !ok {
		return &Hold{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.holdLocked()
}

func (f *Fake) holdLocked() *Hold {
	if f.holds == 0 {
		f.unheld = make(chan struct{})
	}
	f.holds++
	return &Hold{f: f}
}

// Release lets the clock advance again, as far as this Hold is concerned. Only the first call
// counts.
func (h *Hold) Release() {
	if h == nil || h.f == nil {
		return
	}
	h.once.Do(func() {
		f := h.f
		f.mu.Lock()
		defer f.mu.Unlock()
		f.holds--
		if f.holds == 0 {
			close(f.unheld)
		}
	})
}

type holdKey struct{}

// WithHold returns ctx carrying h beside the Holds ctx already carries, for the code that arms the
// timers they wait for: it calls Armed(ctx).
func WithHold(ctx context.Context, h *Hold) context.Context {
	held, _ := ctx.Value(holdKey{}).([]*Hold)
	return context.WithValue(ctx, holdKey{}, append(held[:len(held):len(held)], h))
}

// Armed releases the Holds ctx carries, if any: the holder calls it once the timers it is about to
// wait on are armed, or before it waits for anything else.
func Armed(ctx context.Context) {
	held, _ := ctx.Value(holdKey{}).([]*Hold)
	for _, h := range held {
		h.Release()
	}
}

// Sleep waits d on c, or until ctx ends (then it returns ctx's error). It releases ctx's Hold once
// its timer is armed. A d of zero or less returns at once, and still releases the Hold.
func Sleep(ctx context.Context, c Clock, d time.Duration) error {
	if d <= 0 {
		Armed(ctx)
		return nil
	}
	t := c.NewTimer(d)
	defer t.Stop()
	Armed(ctx)
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SleepHeld is Sleep for a sleeper whose wake has consequences the step after the advance must
// find in place (a Turn that ends when its delay passes, say). On a Fake clock the advance that
// fires the timer takes a Hold for the sleeper, in the same instant, and returns only once it is
// released: SleepHeld returns that Hold, and the sleeper (or whoever it hands it to) releases it
// once the wake's consequences are in place, at the latest before it waits for anything else.
// On any other clock, and when ctx ends first, the Hold holds nothing.
func SleepHeld(ctx context.Context, c Clock, d time.Duration) (*Hold, error) {
	f, ok := c.(*Fake)
	if !ok || d <= 0 {
		return &Hold{}, Sleep(ctx, c, d)
	}
	t := f.newTimer(d, true)
	Armed(ctx)
	select {
	case <-t.c:
		return t.woke, nil
	case <-ctx.Done():
		if !t.Stop() {
			<-t.c // fired meanwhile: its Hold is ours to let go
			t.woke.Release()
		}
		return &Hold{}, ctx.Err()
	}
}

// lockUnheld waits until nothing holds f, then returns with f.mu held; it gives up on the holds
// (and still locks) after HoldGuard of real time, and returns ctx's error unlocked if ctx ends
// first.
func (f *Fake) lockUnheld(ctx context.Context) error {
	var guard <-chan time.Time
	for {
		f.mu.Lock()
		if f.holds == 0 {
			return nil
		}
		unheld := f.unheld
		f.mu.Unlock()
		if guard == nil {
			t := time.NewTimer(HoldGuard)
			defer t.Stop()
			guard = t.C
		}
		select {
		case <-unheld:
		case <-guard:
			overheld.Add(1)
			f.mu.Lock()
			return nil // a holder's bug: moving on is better than hanging
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

var overheld atomic.Int64

// Overheld returns how many advances, in this process so far, gave up waiting for a Hold after
// HoldGuard: each is a holder that forgot to release. A suite asserts it is 0 at its end.
func Overheld() int64 { return overheld.Load() }

// Held returns the number of Holds not released: a test's proof that work holds the clock.
func (f *Fake) Held() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.holds
}

// Handoff passes the Hold of a producer's wake to the consumer that takes up what the producer did
// (a Turn that ends when its delay passes, and the Runtime that applies the end to the Run): the
// advance that woke the producer returns once the consumer has taken the wake up. A consumer that
// waits on something other than the producer (a peer reading its frames) is Away: it lets go of
// what it was given, and of anything given until it is Back, since holding the clock then would
// hold the very advance it waits on. The zero Handoff is ready; a nil one releases what it is given.
type Handoff struct {
	mu   sync.Mutex
	held []*Hold
	away bool
}

// Give passes h to the consumer, or releases it at once if the consumer is away.
func (x *Handoff) Give(h *Hold) {
	if x == nil {
		h.Release()
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.away {
		h.Release()
		return
	}
	x.held = append(x.held, h)
}

// Away marks the consumer as waiting on something other than the producer: it releases what it
// holds, and whatever it is given until Back.
func (x *Handoff) Away() {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.away = true
	x.releaseLocked()
}

// Back marks the consumer as taking up what the producer gives again.
func (x *Handoff) Back() {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.away = false
}

// Release lets go of what the consumer was given: it has taken the wake up.
func (x *Handoff) Release() {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.releaseLocked()
}

func (x *Handoff) releaseLocked() {
	for _, h := range x.held {
		h.Release()
	}
	x.held = nil
}

type handoffKey struct{}

// WithHandoff returns ctx carrying x, for the producer it is passed to (HandoffFrom).
func WithHandoff(ctx context.Context, x *Handoff) context.Context {
	return context.WithValue(ctx, handoffKey{}, x)
}

// HandoffFrom returns the Handoff ctx carries, or nil.
func HandoffFrom(ctx context.Context) *Handoff {
	x, _ := ctx.Value(handoffKey{}).(*Handoff)
	return x
}

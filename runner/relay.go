package runner

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
)

// Relay puts a fault relay between the scripted Core and the Runtime under test for one scenario
// and arms the scenario's fault steps on it. Its clock follows the Runtime's once that is known
// (a virtual clock in process, so `advance` releases a delayed frame).
type Relay struct {
	Schedule *fault.Schedule // rules armed from the start (certify --faults); may be nil
	Seed     string
	Logger   *slog.Logger // receives the relay's log; discarded if nil
	Tap      fault.Tap    // sees every frame the relay carries (a monitor); may be nil

	mu     sync.Mutex
	relay  *fault.Relay
	clock  lazyClock
	cancel context.CancelFunc
	// origin is when the transcript the events join began (see relayed); applied stamps the wall
	// time of each fault the relay applied, in order.
	origin  time.Time
	applied appliedLog
}

// Start listens in front of upstream (a Core base URL) and returns the URL the Runtime must use.
func (r *Relay) Start(ctx context.Context, upstream string) (string, error) {
	r.mu.Lock()
	if r.origin.IsZero() {
		r.origin = time.Now()
	}
	r.mu.Unlock()
	logger := slog.New(&r.applied)
	if r.Logger != nil {
		r.applied.next = r.Logger.Handler()
	}
	rl, err := fault.New(upstream, r.Schedule, fault.Options{Clock: &r.clock, Seed: seedOf(r.Seed), Logger: logger, Tap: r.Tap})
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	base, err := rl.Start(ctx)
	if err != nil {
		cancel()
		return "", err
	}
	r.mu.Lock()
	r.relay, r.cancel = rl, cancel
	r.mu.Unlock()
	return base, nil
}

// AwaitForwarded returns once the relay has passed on everything that reached it
// (fault.Relay.AwaitForwarded); at once before it started.
func (r *Relay) AwaitForwarded(ctx context.Context) error {
	r.mu.Lock()
	rl := r.relay
	r.mu.Unlock()
	if rl == nil {
		return nil
	}
	return rl.AwaitForwarded(ctx)
}

// Follow makes the relay's timers read c (the launched Runtime's clock).
func (r *Relay) Follow(c clock.Clock) { r.clock.set(c) }

// Arm arms one fault step: the placeholder its match names (id: ${name}) is bound from the
// scenario's bindings.
func (r *Relay) Arm(_ context.Context, f *scenarios.FaultStep, b *scenarios.Bindings) error {
	r.mu.Lock()
	rl := r.relay
	r.mu.Unlock()
	if rl == nil {
		return fmt.Errorf("%s: no relay is running", f.Pos)
	}
	rule, ok := faultRule(f)
	if !ok {
		return fmt.Errorf("%s: the fault step holds no decoded rule (%T)", f.Pos, f.Rule)
	}
	if name := rule.Match.IDFrom; name != "" {
		if v, ok := b.Get(name); ok {
			rl.Bind(name, fmt.Sprint(v))
		}
	}
	return rl.Arm(rule)
}

// faultRule is the rule of a fault step, as package fault decoded it when the scenario loaded.
func faultRule(f *scenarios.FaultStep) (fault.Rule, bool) {
	rule, ok := f.Rule.(fault.Rule)
	return rule, ok
}

// AwaitDrop returns once the relay has dropped n frames of type frameType (scenarios.DropWitness).
func (r *Relay) AwaitDrop(ctx context.Context, frameType string, n int) error {
	r.mu.Lock()
	rl := r.relay
	r.mu.Unlock()
	if rl == nil {
		return fmt.Errorf("no relay is running")
	}
	for {
		changed := rl.Changed()
		dropped := 0
		for _, e := range rl.Events() {
			if e.Action == fault.ActDrop && e.Type == frameType {
				dropped++
			}
		}
		if dropped >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%d of %d %s frames dropped", dropped, n, frameType)
		}
	}
}

// Events renders what the relay did, for the transcript, each at the time it happened since the
// transcript began. (The events' own times are on the relay's clock, virtual in process; the
// transcript's are wall time.) An event whose time was not seen is placed now, at the end.
func (r *Relay) Events() []scenarios.Exchange {
	r.mu.Lock()
	rl, origin := r.relay, r.origin
	r.mu.Unlock()
	if rl == nil {
		return nil
	}
	events := rl.Events()
	stamps := r.applied.times(len(events))
	var out []scenarios.Exchange
	for i, e := range events {
		at := time.Since(origin)
		if i < len(stamps) && stamps[i].rule == e.Rule && stamps[i].action == string(e.Action) {
			at = stamps[i].at.Sub(origin)
		}
		out = append(out, scenarios.Exchange{At: at, Dir: scenarios.Event, Type: "fault", Note: e.String()})
	}
	return out
}

// Close stops the relay.
func (r *Relay) Close() {
	r.mu.Lock()
	rl, cancel := r.relay, r.cancel
	r.mu.Unlock()
	if rl != nil {
		cancel()
		rl.Close()
	}
}

// seedOf turns a run's seed into the relay's, so --seed replays the faults too.
func seedOf(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return h.Sum64() | 1
}

// lazyClock is a clock.Clock that reads the wall clock until it is told to follow another.
type lazyClock struct {
	mu sync.Mutex
	c  clock.Clock
}

func (l *lazyClock) set(c clock.Clock) { l.mu.Lock(); l.c = c; l.mu.Unlock() }

func (l *lazyClock) get() clock.Clock {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c == nil {
		return clock.Real()
	}
	return l.c
}

func (l *lazyClock) Now() time.Time                         { return l.get().Now() }
func (l *lazyClock) After(d time.Duration) <-chan time.Time { return l.get().After(d) }
func (l *lazyClock) NewTimer(d time.Duration) clock.Timer   { return l.get().NewTimer(d) }

// relayed puts relay between the scripted Core and what launch starts. It is called for Play's
// argument, right before Play starts its transcript, so that moment is the origin of the relay's
// event times (earlier by the microseconds Play takes to begin: an event never shows before the
// frame that caused it).
func relayed(relay *Relay, launch scriptedcore.Launch) scriptedcore.Launch {
	relay.mu.Lock()
	relay.origin = time.Now()
	relay.mu.Unlock()
	return func(ctx context.Context, c scriptedcore.Connect, v scriptedcore.View) (scriptedcore.Runtime, error) {
		base, err := relay.Start(ctx, c.ServerURL)
		if err != nil {
			return nil, err
		}
		c.ServerURL = base
		rt, err := launch(ctx, c, v)
		if err == nil {
			if cl, ok := rt.(scriptedcore.Clocked); ok {
				relay.Follow(cl.Clock())
			}
		}
		return rt, err
	}
}

// appliedLog is the slog handler the fault relay logs to: it notes the wall time of every fault
// applied ("fault applied", logged as the relay records the event, under its lock, so in event
// order), and passes every record on to next (Relay.Logger), if any.
type appliedLog struct {
	next  slog.Handler
	mu    sync.Mutex
	stamp []appliedStamp
}

type appliedStamp struct {
	at           time.Time
	rule, action string
}

func (h *appliedLog) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelInfo || (h.next != nil && h.next.Enabled(ctx, l))
}

func (h *appliedLog) Handle(ctx context.Context, rec slog.Record) error {
	if rec.Message == "fault applied" {
		st := appliedStamp{at: rec.Time}
		rec.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case "rule":
				st.rule = a.Value.String()
			case "action":
				st.action = a.Value.String()
			}
			return true
		})
		h.mu.Lock()
		h.stamp = append(h.stamp, st)
		h.mu.Unlock()
	}
	if h.next != nil && h.next.Enabled(ctx, rec.Level) {
		return h.next.Handle(ctx, rec)
	}
	return nil
}

// The relay logs through its own logger, never With or WithGroup; those pass through unstamped.
func (h *appliedLog) WithAttrs(as []slog.Attr) slog.Handler { return h.derived().WithAttrs(as) }
func (h *appliedLog) WithGroup(name string) slog.Handler    { return h.derived().WithGroup(name) }
func (h *appliedLog) derived() slog.Handler {
	if h.next == nil {
		return slog.DiscardHandler
	}
	return h.next
}

// times returns the first n stamps.
func (h *appliedLog) times(n int) []appliedStamp {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]appliedStamp(nil), h.stamp[:min(n, len(h.stamp))]...)
}

package agentruntime

import (
	"context"
	"slices"
	"sync"
	"syscall"
	"time"
)

// MemoryOptions configure a [Memory] adapter.
type MemoryOptions struct {
	// Allowlist is checked at Provision exactly as the other adapters do. Zero value: deny all.
	Allowlist EnvAllowlist
	// LookupEnv reads the suite's environment, here only to redact secret values from pushed log
	// lines; os.LookupEnv by default.
	LookupEnv LookupFunc
	// Readiness tells Starting from Connected, as for the other adapters.
	Readiness Readiness
	// LogLines bounds each unit's log; DefaultLogLines if <= 0.
	LogLines int
	// Now stamps exits; time.Now by default.
	Now func() time.Time
}

// Memory is a [Runtime] that runs nothing: units are entries in a map whose health moves by the
// port's verbs and by the test's script ([Memory.Transition], [Memory.Script]), and whose logs are
// what the test pushed ([Memory.PushLog]). It plays a durable backend: Recover answers Adopted
// with every known unit.
//
// Verbs behave like a process that obeys instantly: Start -> Starting, Stop -> Stopped with exit
// code 0, Kill(sig) -> Exited killed by sig (any signal but 0 is taken as lethal; script survival
// with Transition), Pause/Resume toggle Paused.
type Memory struct {
	opts   MemoryOptions
	lookup LookupFunc

	mu      sync.Mutex
	units   map[UnitID]*memUnit
	pending map[UnitID][]string // lines pushed before the unit was provisioned
	closed  bool
}

type memUnit struct {
	health Health
	exit   *Exit
	done   chan struct{} // the current run's; nil if never started
	script []Step
	tail   *logTail
	redact redactor
}

// Step is one scripted health transition: the unit moves to Health; Exit describes the end when
// Health is Exited or Stopped (nil: exit code 0 now).
type Step struct {
	Health Health
	Exit   *Exit
}

var _ Runtime = (*Memory)(nil)

// NewMemory returns an in-memory adapter.
func NewMemory(opts MemoryOptions) *Memory {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Memory{opts: opts, lookup: lookupOrDefault(opts.LookupEnv),
		units: map[UnitID]*memUnit{}, pending: map[UnitID][]string{}}
}

// Provision validates spec (allowlist included) and records the unit as Provisioned. Lines pushed
// earlier for this ID become its log.
func (m *Memory) Provision(ctx context.Context, spec UnitSpec) (UnitID, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := validateSpec(spec, m.opts.Allowlist); err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", ErrClosed
	}
	if u, ok := m.units[spec.ID]; ok {
		if u.health.Alive() {
			return "", alreadyRunning(spec.ID)
		}
		u.redact = newRedactor(secretValues(spec.SecretEnv, m.lookup))
		return spec.ID, nil
	}
	u := &memUnit{health: Provisioned, tail: newLogTail(m.opts.LogLines),
		redact: newRedactor(secretValues(spec.SecretEnv, m.lookup))}
	u.tail.Append(m.pending[spec.ID]...)
	delete(m.pending, spec.ID)
	m.units[spec.ID] = u
	return spec.ID, nil
}

func (m *Memory) unitLocked(id UnitID) (*memUnit, error) {
	if m.closed {
		return nil, ErrClosed
	}
	u, ok := m.units[id]
	if !ok {
		return nil, notFound(id)
	}
	return u, nil
}

// do runs f on unit id under the lock.
func (m *Memory) do(ctx context.Context, id UnitID, f func(u *memUnit) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u, err := m.unitLocked(id)
	if err != nil {
		return err
	}
	return f(u)
}

// moveLocked applies a transition, opening a new run when a unit comes alive and ending the run
// when it ends.
func (m *Memory) moveLocked(u *memUnit, s Step) {
	wasAlive := u.health.Alive()
	u.health = s.Health
	switch {
	case s.Health.Alive() && !wasAlive:
		u.exit = nil
		u.done = make(chan struct{})
	case s.Health == Exited || s.Health == Stopped:
		ex := Exit{Code: 0, At: m.opts.Now()}
		if s.Exit != nil {
			ex = *s.Exit
		}
		u.exit = &ex
		if wasAlive && u.done != nil {
			close(u.done)
		}
	}
}

// Start moves a unit that is not alive to Starting.
func (m *Memory) Start(ctx context.Context, id UnitID) error {
	return m.do(ctx, id, func(u *memUnit) error {
		if u.health.Alive() {
			return alreadyRunning(id)
		}
		m.moveLocked(u, Step{Health: Starting})
		return nil
	})
}

// Stop moves a live unit to Stopped with exit code 0. The grace is not waited for.
func (m *Memory) Stop(ctx context.Context, id UnitID, _ time.Duration) error {
	return m.do(ctx, id, func(u *memUnit) error {
		if u.health.Alive() {
			m.moveLocked(u, Step{Health: Stopped})
		}
		return nil
	})
}

// Kill moves a live unit to Exited, killed by sig. Signal 0 only checks that it is alive.
func (m *Memory) Kill(ctx context.Context, id UnitID, sig syscall.Signal) error {
	if sig == syscall.SIGSTOP || sig == syscall.SIGCONT {
		return &UnsupportedError{Op: "kill with " + sig.String(), Backend: "memory",
			Need: "use Pause and Resume, which keep the unit's health in step"}
	}
	return m.do(ctx, id, func(u *memUnit) error {
		if !u.health.Alive() {
			return notRunning(id)
		}
		if sig != 0 {
			m.moveLocked(u, Step{Health: Exited, Exit: &Exit{Code: -1, Signal: sig, At: m.opts.Now()}})
		}
		return nil
	})
}

// Restart is Stop then Start.
func (m *Memory) Restart(ctx context.Context, id UnitID, grace time.Duration) error {
	if err := m.Stop(ctx, id, grace); err != nil {
		return err
	}
	return m.Start(ctx, id)
}

// Pause moves a live unit to Paused.
func (m *Memory) Pause(ctx context.Context, id UnitID) error {
	return m.do(ctx, id, func(u *memUnit) error {
		if !u.health.Alive() {
			return notRunning(id)
		}
		u.health = Paused
		return nil
	})
}

// Resume moves a paused unit back to Starting (the Readiness probe decides Connected).
func (m *Memory) Resume(ctx context.Context, id UnitID) error {
	return m.do(ctx, id, func(u *memUnit) error {
		if !u.health.Alive() {
			return notRunning(id)
		}
		if u.health == Paused {
			u.health = Starting
		}
		return nil
	})
}

// Transition moves unit id to s.Health at once (a crash, a scripted connection...).
// Connected here is sticky: unlike a probe answer, it stays until the next transition.
func (m *Memory) Transition(id UnitID, s Step) error {
	return m.do(context.Background(), id, func(u *memUnit) error {
		m.moveLocked(u, s)
		return nil
	})
}

// Script queues transitions: each later Health (or List) observation of the unit first applies
// the next step, so a poller sees them one per look. When the queue is empty the state stays.
func (m *Memory) Script(id UnitID, steps ...Step) error {
	return m.do(context.Background(), id, func(u *memUnit) error {
		u.script = append(u.script, steps...)
		return nil
	})
}

// PushLog appends lines to unit id's log; lines pushed before Provision are kept for it.
func (m *Memory) PushLog(id UnitID, lines ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if u, ok := m.units[id]; ok {
		u.tail.Append(lines...)
		return
	}
	m.pending[id] = append(m.pending[id], lines...)
}

// Health applies the next scripted step, if any, and reports the state.
func (m *Memory) Health(ctx context.Context, id UnitID) (Status, error) {
	var st Status
	err := m.do(ctx, id, func(u *memUnit) error {
		if len(u.script) > 0 {
			m.moveLocked(u, u.script[0])
			u.script = u.script[1:]
		}
		st = Status{ID: id, Health: u.health}
		if u.exit != nil && (u.health == Exited || u.health == Stopped) {
			ex := *u.exit
			st.Exit = &ex
		}
		return nil
	})
	if err != nil {
		return Status{}, err
	}
	if st.Health == Starting && m.opts.Readiness != nil && m.opts.Readiness(ctx, id) {
		st.Health = Connected
	}
	return st, nil
}

// Wait blocks until the current run ends.
func (m *Memory) Wait(ctx context.Context, id UnitID) (Exit, error) {
	var done chan struct{}
	if err := m.do(ctx, id, func(u *memUnit) error {
		done = u.done
		return nil
	}); err != nil {
		return Exit{}, err
	}
	if done == nil {
		return Exit{}, notRunning(id)
	}
	select {
	case <-done:
	case <-ctx.Done():
		return Exit{}, ctx.Err()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u, err := m.unitLocked(id)
	if err != nil {
		return Exit{}, err
	}
	if u.exit == nil { // ended, and already started again
		return Exit{}, notRunning(id)
	}
	return *u.exit, nil
}

// List reports every unit, sorted by ID.
func (m *Memory) List(ctx context.Context) ([]Status, error) {
	return listUnits(ctx, &m.mu, m.units, m.Health)
}

// Logs returns the pushed lines, secret values redacted.
func (m *Memory) Logs(ctx context.Context, id UnitID, tail int) ([]string, error) {
	var lines []string
	err := m.do(ctx, id, func(u *memUnit) error {
		lines = u.tail.Lines(tail)
		for i, l := range lines {
			lines[i] = u.redact.apply(l)
		}
		return nil
	})
	return lines, err
}

// Recover answers Adopted with every known unit: the in-memory backend plays a durable one.
func (m *Memory) Recover(ctx context.Context) (Recovered, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	ids := make([]UnitID, 0, len(m.units))
	for id := range m.units {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return Adopted{IDs: ids}, nil
}

// Remove ends the unit's run (as Stopped) and forgets it.
func (m *Memory) Remove(ctx context.Context, id UnitID) error {
	return m.do(ctx, id, func(u *memUnit) error {
		if u.health.Alive() {
			m.moveLocked(u, Step{Health: Stopped})
		}
		delete(m.units, id)
		return nil
	})
}

// Close marks the adapter closed; it started no goroutines.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

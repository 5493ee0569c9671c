package monitor

import (
	"fmt"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/proto"
)

// Alarm is one rule broken by one frame.
type Alarm struct {
	Conn   int        `json:"conn"`   // the connection, numbered from 1 in the order they opened
	Frame  int        `json:"frame"`  // the frame's number on its connection, both directions counted, from 1 (0: its end, before any frame)
	From   proto.Peer `json:"from"`   // the side that sent the frame, and so broke the rule
	Type   string     `json:"type"`   // the frame's type ("" when it has none)
	ID     string     `json:"id"`     // the envelope id
	Rule   string     `json:"rule"`   // the rule's ID in rules.md
	Detail string     `json:"detail"` // what the frame did, against what the rule requires
}

func (a Alarm) String() string {
	id := a.ID
	if len(id) > 40 {
		id = id[:40] + "…"
	}
	return fmt.Sprintf("conn %d frame %d %s→%s %s %q: %s: %s", a.Conn, a.Frame, a.From, a.From.Other(), a.Type, id, a.Rule, a.Detail)
}

// Monitor checks the frames of every connection it is told about. It is safe for concurrent use;
// frames of one connection must be reported in the order each direction carried them.
type Monitor struct {
	mu      sync.Mutex
	now     func() time.Time
	onAlarm func(Alarm)
	conns   map[int]*conn
	devices map[string]*device
	alarms  []Alarm
	frames  int
}

// HeartbeatGrace is how long after the socket opens the monitor waits for the Runtime's first
// heartbeat, which it sends at once (CN-23): generous beside a loaded machine's scheduling, small
// beside the 15 s a heartbeat sent on the interval's first tick would take.
const HeartbeatGrace = time.Second

// Option configures a monitor.
type Option func(*Monitor)

// WithClock gives the monitor its clock (the wall clock by default); only the heartbeat's grace
// reads it.
func WithClock(now func() time.Time) Option { return func(m *Monitor) { m.now = now } }

// New returns a monitor that calls onAlarm (if not nil) for each alarm as it is raised, under the
// monitor's lock: it must not call back into the monitor.
func New(onAlarm func(Alarm), opts ...Option) *Monitor {
	m := &Monitor{now: time.Now, onAlarm: onAlarm, conns: map[int]*conn{}, devices: map[string]*device{}}
	for _, o := range opts {
		o(m)
	}
	return m
}

// device is what outlives a device's connections: the identities its earlier connections used,
// which a later one must never see replayed (CN-40).
type device struct {
	transfers map[string]int // runtime_prepare begin ID → the connection that sent it
	writes    map[string]int // workspace_write begin ID → connection
	inputs    map[string]int // Run ID + input ID → connection
}

// Open starts a connection of the device deviceID ("" if unknown).
func (m *Monitor) Open(n int, deviceID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.devices[deviceID]
	if d == nil {
		d = &device{transfers: map[string]int{}, writes: map[string]int{}, inputs: map[string]int{}}
		m.devices[deviceID] = d
	}
	m.conns[n] = newConn(m, n, d)
}

// Close ends a connection: nothing it began can be answered any more.
func (m *Monitor) Close(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.conns[n]; c != nil {
		c.closing()
	}
	delete(m.conns, n)
}

// Frame checks one frame that from sent on connection n. data is not retained.
func (m *Monitor) Frame(n int, from proto.Peer, data []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.frames++
	c := m.conns[n]
	if c == nil { // a tap that missed the open: check the frame alone
		c = newConn(m, n, &device{transfers: map[string]int{}, writes: map[string]int{}, inputs: map[string]int{}})
		m.conns[n] = c
	}
	c.frame(from, data)
}

// Alarms returns every alarm raised so far, in order.
func (m *Monitor) Alarms() []Alarm {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Alarm(nil), m.alarms...)
}

// Frames returns how many frames the monitor has checked.
func (m *Monitor) Frames() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.frames
}

func (m *Monitor) raise(a Alarm) {
	m.alarms = append(m.alarms, a)
	if m.onAlarm != nil {
		m.onAlarm(a)
	}
}

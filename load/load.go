package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/transport"
)

// Config is one load run.
type Config struct {
	// CoreURL is the Core's base URL (http://127.0.0.1:PORT); it must be a loopback address.
	CoreURL  string
	Runtimes int
	// Rate is Turns started per second; Turns bounds how many, Duration for how long (the first
	// bound reached ends the starting). Turns 0 starts none (a connection-only run).
	Rate     float64
	Turns    int
	Duration time.Duration
	// Events is the deltas each Turn emits (default 3); Hold spreads them (and the usage and done
	// after them) over that long, as a streaming model does, which keeps Runs concurrent.
	Events int
	Hold   time.Duration
	// Storm is the percentage of Runtimes per minute dropped and reconnected.
	Storm float64
	// Cancel is the fraction of Turns that wait for cancellation (cancelled through the API once
	// started); LostReceipts the fraction of those whose cancellation receipt the Runtime withholds.
	Cancel, LostReceipts float64
	Seed                 int64
	Register             Registrar
	// CoreMemory, if set, reads the Core's resident memory for the report.
	CoreMemory func() (ProcessMemory, error)
	// Drain bounds the wait for the last Turns' outcomes (default 60 s; a withheld receipt takes
	// the Core 15 s).
	Drain time.Duration
	// Sample is the period of the goroutine and memory samples (default Duration/20, at least 1 s).
	Sample time.Duration
	// Log gets progress lines; nil discards them.
	Log io.Writer
}

func (c *Config) defaults() error {
	if c.Runtimes < 1 {
		return errors.New("--runtimes must be at least 1")
	}
	if c.Turns > 0 && c.Rate <= 0 {
		return errors.New("--rate must be positive when --turns is")
	}
	if c.Duration <= 0 {
		return errors.New("--duration must be positive: a load run stops by itself")
	}
	if c.Storm < 0 || c.Storm > 100 || c.Cancel < 0 || c.Cancel > 1 || c.LostReceipts < 0 || c.LostReceipts > 1 {
		return errors.New("--storm is a percentage (0–100); --cancel and --lost-receipts are fractions (0–1)")
	}
	if c.Register == nil {
		return errors.New("no way to register devices")
	}
	if c.Events == 0 {
		c.Events = 3
	}
	if c.Drain <= 0 {
		c.Drain = 60 * time.Second
	}
	if c.Sample <= 0 {
		c.Sample = max(time.Second, c.Duration/20)
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return checkLoopback(c.CoreURL)
}

// Scripted content and usage every completed Turn must report once (never summed).
const (
	turnContent = "load-ok"
	turnUsage   = `{"tokens":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":5,"reasoning_output_tokens":0,"total_tokens":15}}`
)

func (c *Config) configuration(hold bool) json.RawMessage {
	var events []string
	gap := c.Hold / time.Duration(max(1, c.Events)) // a streamed Turn: its events spread over Hold
	for i := range c.Events {
		if i > 0 && gap > 0 {
			events = append(events, fmt.Sprintf(`{"delay_ms":%d}`, gap.Milliseconds()))
		}
		events = append(events, fmt.Sprintf(`{"delta":"token %d "}`, i))
	}
	if gap > 0 {
		events = append(events, fmt.Sprintf(`{"delay_ms":%d}`, gap.Milliseconds()))
	}
	events = append(events, `{"usage":`+turnUsage+`}`)
	turn := fmt.Sprintf(`{"events":[%s],"content":%q,"usage":%s}`, strings.Join(events, ","), turnContent, turnUsage)
	if hold {
		turn = `{"events":[{"delta":"held "}],"wait_for_cancel":true}`
	}
	return json.RawMessage(fmt.Sprintf(`{"agent_kind":"contract","agent_options":{"contract":{"turn":%s,"cancel":{"outcome":{"content":"cancelled"}}}}}`, turn))
}

// turnRec is one Turn the driver asked for.
type turnRec struct {
	i              int
	id, runID      string
	hold, lose     bool
	posted, answer time.Time
	refused        string // the API's error code when it refused
	cancelled      bool
}

type driver struct {
	cfg    Config
	http   *http.Client
	fleet  *fleet
	rts    []*simRuntime
	mu     sync.Mutex
	byRun  map[string]*turnRec
	held   map[string]bool // Runs that waited for cancellation before the API answered
	turns  []*turnRec
	wg     sync.WaitGroup // API calls and cancellations
	report *Report
}

// Run runs one load: register and connect the Runtimes, start the Turns, apply the faults, wait
// for the outcomes, read the Core's records back and check them. It returns when everything it
// started has stopped; an error means the run could not be carried out (a failed check is in
// the report, not an error).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	raiseFileLimit()
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	d := &driver{cfg: cfg, http: hc, byRun: map[string]*turnRec{}, held: map[string]bool{},
		report: &Report{Seed: cfg.Seed, Runtimes: cfg.Runtimes, LoadAverage: []string{loadAverage()}}}
	fmt.Fprintf(cfg.Log, "wirecheck load: seed %d, %d Runtimes against %s\n", cfg.Seed, cfg.Runtimes, cfg.CoreURL)

	runCtx, stop := context.WithCancel(ctx)
	var bg sync.WaitGroup
	defer func() { stop(); bg.Wait() }()
	caps := proto.MustDeclareCapabilities("streaming", "usage", "environment_none", "preparation")
	kinds, _ := json.Marshal([]proto.SupportedAgentKind{{Kind: "contract", Available: true, Version: "load-1", Capabilities: &caps}})
	d.fleet = &fleet{ctx: runCtx, client: transport.Client{HTTP: hc, UserAgent: "wirecheck-load"}, kinds: kinds,
		scripts: scripts{m: map[string]*script{}}, runs: &runBook{m: map[string]*runRecord{}},
		wheel: &wheel{ctx: runCtx, wg: &bg}, connSem: make(chan struct{}, 32), coreURL: strings.TrimSuffix(cfg.CoreURL, "/"),
		onHold: d.onHold, lose: d.lose}

	devices, err := d.register(ctx)
	if err != nil {
		return nil, err
	}
	before := simMemory()
	if err := d.connect(runCtx, &bg, devices); err != nil {
		return d.report, err
	}
	after := simMemory()
	d.report.measureSim(before, after, cfg.Runtimes)
	d.sampleCore()

	var sampler sync.WaitGroup
	sampleCtx, stopSampling := context.WithCancel(runCtx)
	sampler.Add(1)
	go func() { defer sampler.Done(); d.sample(sampleCtx) }()
	if cfg.Storm > 0 {
		sampler.Add(1)
		go func() { defer sampler.Done(); d.storm(sampleCtx) }()
	}
	d.startTurns(runCtx)
	d.wg.Wait()
	d.drain(ctx)
	stopSampling()
	sampler.Wait()
	d.sampleNow()
	d.sampleCore()
	if err := d.verify(ctx); err != nil {
		return d.report, err
	}
	d.report.LoadAverage = append(d.report.LoadAverage, loadAverage())
	d.report.fill(d.fleet)
	return d.report, nil
}

// register registers every device, a few at a time.
func (d *driver) register(ctx context.Context) ([]Device, error) {
	t0 := time.Now()
	devices := make([]Device, d.cfg.Runtimes)
	errs := make([]error, d.cfg.Runtimes)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range devices {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			devices[i], errs[i] = d.cfg.Register(ctx, i)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("registering devices: %w", err)
	}
	d.report.RegisterSeconds = time.Since(t0).Seconds()
	fmt.Fprintf(d.cfg.Log, "registered %d devices in %.1fs\n", len(devices), d.report.RegisterSeconds)
	return devices, nil
}

// connect starts every Runtime's reader loop and waits for each first connection.
func (d *driver) connect(ctx context.Context, bg *sync.WaitGroup, devices []Device) error {
	t0 := time.Now()
	first := make(chan error, len(devices))
	for _, dev := range devices {
		r := &simRuntime{f: d.fleet, id: transport.Identity{DeviceID: dev.ID, Credential: dev.Credential, Version: proto.Version}}
		d.rts = append(d.rts, r)
	}
	d.fleet.wheel.add(d.rts)
	for _, r := range d.rts {
		bg.Add(1)
		go func() { defer bg.Done(); r.loop(ctx, first) }()
	}
	var errs []error
	for range d.rts {
		if err := <-first; err != nil {
			errs = append(errs, err)
		}
	}
	secs := time.Since(t0).Seconds()
	d.report.Connected = len(d.rts) - len(errs)
	d.report.ConnectSeconds = secs
	d.report.ConnectRate = float64(d.report.Connected) / secs
	fmt.Fprintf(d.cfg.Log, "connected %d of %d Runtimes in %.1fs (%.0f/s)\n", d.report.Connected, len(d.rts), secs, d.report.ConnectRate)
	if len(errs) > 0 {
		return fmt.Errorf("%d Runtimes could not connect; the first: %w", len(errs), errs[0])
	}
	return nil
}

// startTurns starts Turns at the rate until the count or the duration is reached. Which Turns
// wait for cancellation, and which of those lose their receipt, is drawn from the seed.
func (d *driver) startTurns(ctx context.Context) {
	rng := rand.New(rand.NewPCG(uint64(d.cfg.Seed), 0x10ad))
	t0 := time.Now()
	end := t0.Add(d.cfg.Duration)
	sem := make(chan struct{}, 64)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for i := 0; i < d.cfg.Turns; i++ {
		at := t0.Add(time.Duration(float64(i) / d.cfg.Rate * float64(time.Second)))
		if at.After(end) {
			break
		}
		timer.Reset(time.Until(at))
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		hold := rng.Float64() < d.cfg.Cancel
		lose := rng.Float64() < d.cfg.LostReceipts && hold
		t := &turnRec{i: i, hold: hold, lose: lose}
		d.mu.Lock()
		d.turns = append(d.turns, t)
		d.mu.Unlock()
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		d.wg.Add(1)
		go func() {
			defer func() { <-sem; d.wg.Done() }()
			d.post(ctx, t, d.rts[i%len(d.rts)].id.DeviceID)
		}()
	}
	// A connection-only run (no Turns) still lasts its duration: the Runtimes heartbeat meanwhile.
	if d.cfg.Turns == 0 {
		timer.Reset(time.Until(end))
		select {
		case <-ctx.Done():
		case <-timer.C:
		}
	}
	fmt.Fprintf(d.cfg.Log, "asked for %d Turns in %.1fs\n", len(d.turns), time.Since(t0).Seconds())
}

func (d *driver) post(ctx context.Context, t *turnRec, deviceID string) {
	body, _ := json.Marshal(map[string]any{"device_id": deviceID, "environment": "none",
		"configuration": d.cfg.configuration(t.hold), "input": proto.TextInput(fmt.Sprintf("load turn %d", t.i))})
	t.posted = time.Now()
	var ans struct {
		TurnID string `json:"turn_id"`
		RunID  string `json:"run_id"`
		Error  string `json:"error"`
	}
	status, err := d.call(ctx, http.MethodPost, "/api/v1/turns", body, &ans)
	d.mu.Lock()
	defer d.mu.Unlock()
	t.answer = time.Now()
	switch {
	case err != nil:
		t.refused = "transport: " + err.Error()
	case status != http.StatusCreated:
		t.refused = fmt.Sprintf("%d %s", status, ans.Error)
	default:
		t.id, t.runID = ans.TurnID, ans.RunID
		d.byRun[t.runID] = t
		if d.held[t.runID] {
			delete(d.held, t.runID)
			d.cancelLocked(ctx, t)
		}
	}
}

// onHold is the simulator saying a held Run started: cancel it through the API.
func (d *driver) onHold(runID string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if t, ok := d.byRun[runID]; ok {
		d.cancelLocked(d.fleet.ctx, t)
		return
	}
	d.held[runID] = true // the API has not answered yet; post cancels it when it does
}

func (d *driver) cancelLocked(ctx context.Context, t *turnRec) {
	if t.cancelled {
		return
	}
	t.cancelled = true
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		_, _ = d.call(ctx, http.MethodPost, "/api/v1/turns/"+t.id+"/cancel", nil, nil)
	}()
}

func (d *driver) lose(runID string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.byRun[runID]
	return ok && t.lose
}

// storm drops Storm % of the Runtimes per minute, spread over the seconds, chosen by the seed.
func (d *driver) storm(ctx context.Context) {
	rng := rand.New(rand.NewPCG(uint64(d.cfg.Seed), 0x5707))
	perSecond := float64(len(d.rts)) * d.cfg.Storm / 100 / 60
	t := time.NewTicker(time.Second)
	defer t.Stop()
	owed := 0.0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		owed += perSecond
		for ; owed >= 1; owed-- {
			d.rts[rng.IntN(len(d.rts))].kick()
			d.report.Kicked++
		}
	}
}

func (d *driver) call(ctx context.Context, method, path string, body []byte, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(string(body))
	}
	req, err := http.NewRequestWithContext(ctx, method, d.fleet.coreURL+path, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, proto.MaxFrameBytes))
	if err != nil {
		return resp.StatusCode, err
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

func simMemory() runtime.MemStats {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

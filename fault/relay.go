package fault

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/internal/sockwatch"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/transport"
)

// Options configure a relay.
type Options struct {
	// Clock times delays and delayed closes; default the wall clock. In process, give the clock
	// the scenario advances.
	Clock clock.Clock
	// Logger receives the seed, connections and every fault applied; default: discarded.
	Logger *slog.Logger
	// Seed reproduces a run. 0 takes the schedule's seed, and if that is 0 too, one from
	// crypto/rand, which is logged.
	Seed uint64
	// Addr is where to listen; default 127.0.0.1:0.
	Addr string
	// Tap, if set, sees every connection and every frame the relay carries.
	Tap Tap
}

// Tap is a passive observer of a relay's traffic (wirecheck monitor). It sees each frame as the
// peer will receive it (after the rules: a dropped frame never, a duplicated one twice, a
// corrupted one corrupted), just before it is written, so a reply is never seen before the request
// it answers. Without rules, calls for one direction of a connection come in the order it carried
// them (a rule that delays or reorders frames writes them from timers, which may interleave).
// data is valid only during the call.
type Tap interface {
	Open(conn int, deviceID string)
	Frame(conn int, from proto.Peer, data []byte)
	Close(conn int)
}

// Relay is a running (or ready to run) fault relay between one Core and its Runtimes.
type Relay struct {
	upstream *url.URL // Core's base URL, ending in /api/v1
	clk      clock.Clock
	log      *slog.Logger
	seed     uint64
	addr     string
	tap      Tap

	ctx       context.Context // ends at Close; bounds dials to Core
	cancel    context.CancelFunc
	transport *http.Transport // to Core: bootstrap, device-status and upgrades
	proxy     *httputil.ReverseProxy
	srv       *http.Server
	ln        net.Listener
	stopCtx   func() bool // stops the context.AfterFunc of Start
	// watch and batches see the relay's sockets (both legs), for AwaitForwarded.
	watch   *sockwatch.Watcher
	batches batchSet

	filters atomic.Pointer[filters] // which frames no armed rule can select, read without r.mu

	mu       sync.Mutex
	started  bool
	closed   bool
	rules    []*armedRule
	rngs     map[Direction]*rand.Rand
	bindings map[string]string
	refusals []*refusal
	events   []Event
	changed  chan struct{}
	coreWS   *url.URL // Core's ws_url from the latest bootstrap
	conns    int      // connections accepted
	attempts int      // upgrade attempts
	sessions map[*session]struct{}
	wg       sync.WaitGroup // upgrade handlers, sessions
}

// New prepares a relay in front of the Core at upstream (its base URL, ending in /api/v1) with the
// schedule's rules armed. sched may be nil (a transparent relay).
func New(upstream string, sched *Schedule, opts Options) (*Relay, error) {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("fault relay: upstream %q must be Core's absolute http(s) base URL, ending in %s", upstream, proto.APIPrefix)
	}
	if sched == nil {
		sched = &Schedule{}
	}
	if err := sched.Validate(); err != nil {
		return nil, fmt.Errorf("fault relay: %w", err)
	}
	r := &Relay{upstream: u, clk: opts.Clock, log: opts.Logger, seed: opts.Seed, addr: opts.Addr, tap: opts.Tap,
		bindings: map[string]string{}, changed: make(chan struct{}), sessions: map[*session]struct{}{}}
	if r.clk == nil {
		r.clk = clock.Real()
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.addr == "" {
		r.addr = "127.0.0.1:0"
	}
	if r.seed == 0 {
		r.seed = sched.Seed
	}
	if r.seed == 0 {
		r.seed = randomSeed()
		r.log.Info("fault relay: seed chosen at random; give it back (Options.Seed or the schedule's seed:) to reproduce this run", "seed", r.seed)
	} else {
		r.log.Info("fault relay: seed", "seed", r.seed)
	}
	r.rngs = map[Direction]*rand.Rand{
		CoreToRuntime: rand.New(rand.NewPCG(r.seed, 1)),
		RuntimeToCore: rand.New(rand.NewPCG(r.seed, 2)),
	}
	for _, rule := range sched.Rules {
		r.rules = append(r.rules, r.arm(rule))
	}
	r.refilter()
	r.ctx, r.cancel = context.WithCancel(context.Background())
	// The relay talks to Core itself, through no proxy, with its own idle connections (closed at
	// Close) and batching sockets.
	r.watch = sockwatch.New()
	r.transport = &http.Transport{DialContext: batchDial(r.watch.DialContext(&net.Dialer{}), &r.batches), MaxIdleConnsPerHost: 4,
		TLSHandshakeTimeout: proto.HandshakeTimeout}
	r.proxy = &httputil.ReverseProxy{Rewrite: r.rewrite, ModifyResponse: r.modifyResponse,
		Transport: r.transport, ErrorHandler: r.proxyError, ErrorLog: slog.NewLogLogger(r.log.Handler(), slog.LevelWarn)}
	return r, nil
}

func randomSeed() uint64 {
	var b [8]byte
	for {
		_, _ = crand.Read(b[:])
		if s := binary.LittleEndian.Uint64(b[:]); s != 0 {
			return s
		}
	}
}

// Seed returns the seed every random choice of this relay is drawn from.
func (r *Relay) Seed() uint64 { return r.seed }

// Start listens (on 127.0.0.1:0 unless Options.Addr says otherwise) and returns the base URL to
// give the Runtime instead of Core's, ending in /api/v1. The relay closes when ctx ends or at
// Close.
func (r *Relay) Start(ctx context.Context) (string, error) {
	r.mu.Lock()
	if r.started || r.closed {
		r.mu.Unlock()
		return "", errors.New("fault relay: already started")
	}
	r.started = true
	r.mu.Unlock()
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		return "", fmt.Errorf("fault relay: %w", err)
	}
	r.ln = ln
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serveHTTP), ErrorLog: slog.NewLogLogger(r.log.Handler(), slog.LevelWarn),
		ReadHeaderTimeout: proto.HandshakeTimeout}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		_ = r.srv.Serve(batchListener{r.watch.Listen(ln), &r.batches})
	}()
	r.stopCtx = context.AfterFunc(ctx, r.Close)
	r.log.Info("fault relay: listening", "url", r.URL(), "upstream", r.upstream.Redacted())
	return r.URL(), nil
}

// AwaitForwarded returns once the relay has passed on everything that reached it: every socket's
// reader waits on an empty receive queue (so every frame read has been decided and written, or
// held by a rule's timer), everything written is out of the relay's buffers, and the other end's
// kernel has acknowledged it. A harness that advances a clock behind the relay waits for this
// between "the peer's kernel has my frames" and "the peer has read them": without it the frame
// could still be in the relay when the peer is found idle. errors.ErrUnsupported where the
// kernel cannot be asked (not unix).
func (r *Relay) AwaitForwarded(ctx context.Context) error {
	if err := r.watch.AwaitReadAll(ctx); err != nil {
		return err
	}
	if err := r.batches.waitIdle(ctx); err != nil {
		return err
	}
	return r.watch.AwaitSent(ctx)
}

// URL is the relay's base URL (ending in /api/v1), once started.
func (r *Relay) URL() string {
	if r.ln == nil {
		return ""
	}
	return "http://" + r.ln.Addr().String() + proto.APIPrefix
}

// Close stops listening, drops every connection without a close frame (the relay is the network;
// it vanishes) and waits for everything it started.
func (r *Relay) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	sessions := make([]*session, 0, len(r.sessions))
	for s := range r.sessions {
		sessions = append(sessions, s)
	}
	r.mu.Unlock()
	if r.stopCtx != nil {
		r.stopCtx()
	}
	r.cancel()
	if r.srv != nil {
		_ = r.srv.Close()
	}
	for _, s := range sessions {
		s.abort()
	}
	r.wg.Wait()
	r.transport.CloseIdleConnections()
}

// Bind gives a placeholder its value: rules with IDFrom name match frames whose id is value.
func (r *Relay) Bind(name, value string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bindings[name] = value
}

// Arm adds a rule at run time, after the armed ones; its count of matches starts now. This is
// what a scenario's fault step does.
func (r *Relay) Arm(rule Rule) error {
	if err := rule.Validate(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.rules {
		if a.rule.Name == rule.Name {
			return &RuleError{Rule: rule.Name, Member: "name", Msg: "a rule of this name is already armed"}
		}
	}
	r.rules = append(r.rules, r.arm(rule))
	r.refilter()
	return nil
}

// Disarm removes a rule (and any refusal it armed); it reports whether the rule was armed.
func (r *Relay) Disarm(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	found := false
	keep := r.rules[:0]
	for _, a := range r.rules {
		if a.rule.Name == name {
			found = true
			continue
		}
		keep = append(keep, a)
	}
	r.rules = keep
	refusals := r.refusals[:0]
	for _, f := range r.refusals {
		if f.rule != name {
			refusals = append(refusals, f)
		}
	}
	r.refusals = refusals
	r.refilter()
	return found
}

func (r *Relay) serveHTTP(w http.ResponseWriter, req *http.Request) {
	if isUpgrade(req) {
		r.upgrade(w, req)
		return
	}
	r.proxy.ServeHTTP(w, req)
}

func isUpgrade(req *http.Request) bool {
	return strings.EqualFold(req.Header.Get("Upgrade"), "websocket") &&
		strings.Contains(strings.ToLower(req.Header.Get("Connection")), "upgrade")
}

// upstreamPath maps a path under the relay's /api/v1 onto Core's base URL.
func (r *Relay) upstreamPath(p string) string {
	rest, ok := strings.CutPrefix(p, proto.APIPrefix)
	if !ok {
		return p
	}
	return strings.TrimSuffix(r.upstream.Path, "/") + rest
}

// rewrite points a proxied request at Core. Headers pass as they are, the credential included;
// the relay adds no forwarding headers.
func (r *Relay) rewrite(pr *httputil.ProxyRequest) {
	out := pr.Out
	out.URL.Scheme, out.URL.Host = r.upstream.Scheme, r.upstream.Host
	out.URL.Path, out.URL.RawPath = r.upstreamPath(pr.In.URL.Path), ""
	out.Host = ""
}

// modifyResponse rewrites bootstrap's ws_url so the Runtime dials the relay, and remembers
// Core's, where the relay dials.
func (r *Relay) modifyResponse(resp *http.Response) error {
	if !strings.HasSuffix(resp.Request.URL.Path, "/agent-daemon/bootstrap") || resp.StatusCode/100 != 2 {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	out := body
	if ms, ok := splitObject(body); ok {
		if i := ms.index("ws_url"); i >= 0 {
			var ws string
			if json.Unmarshal(ms[i].raw, &ws) == nil {
				if u, err := url.Parse(ws); err == nil && u.Host != "" {
					r.mu.Lock()
					r.coreWS = u
					r.mu.Unlock()
					mine := *u
					mine.Scheme, mine.Host = "ws", r.ln.Addr().String()
					raw, _ := json.Marshal(mine.String())
					out = joinObject(ms.with("ws_url", raw))
				}
			}
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	return nil
}

func (r *Relay) proxyError(w http.ResponseWriter, req *http.Request, err error) {
	r.log.Warn("fault relay: Core did not answer", "method", req.Method, "path", req.URL.Path, "error", err.Error())
	transport.WriteError(w, http.StatusBadGateway, proto.HTTPInternal, "fault relay: Core did not answer")
}

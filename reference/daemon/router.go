package daemon

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/admission"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
	"github.com/wirecheck/wirecheck/reference/daemon/suspend"
	"github.com/wirecheck/wirecheck/transport"
)

// router serves one physical connection: fresh routing, admission handles and Runs. It decides
// every state change in order, under its lock, in the receive loop; native work (setup, start,
// cancellation) runs in goroutines it owns, so a slow Harness never delays another frame.
type router struct {
	d   *Daemon
	ws  *websocket.Conn
	out *outbound

	ctx    context.Context // the router's lifetime; cancelled by shutdown
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine the router starts

	mu        sync.Mutex
	closing   bool
	records   map[string]*grant // by preparation request ID
	byHandle  map[string]*grant
	order     []*grant // creation order, for pruning
	executors map[string]*executor
	runs      map[string]*run // active Runs by Run ID

	iaMu sync.Mutex // guards ia; never held with mu
	ia   *interactions

	tr transfers // runtime_prepare, under mu

	wso     wsOps  // workspace read/write/export, under mu
	closeWS func() // releases the workspace directory

	conn uint64 // this connection's number, for the suspension machine
}

func newRouter(d *Daemon, ws *websocket.Conn) *router {
	ctx, cancel := context.WithCancel(context.Background())
	if d.env != nil {
		ctx = harness.WithEnvironment(ctx, d.env) // native work runs in the bound Environment
	}
	r := &router{d: d, ws: ws, out: newOutbound(ws, d.cfg.TransportClock), ctx: ctx, cancel: cancel,
		records: map[string]*grant{}, byHandle: map[string]*grant{}, executors: map[string]*executor{}, runs: map[string]*run{}, ia: newInteractions(),
		tr: newTransfers(d.env != nil)}
	r.wso.m.FS, r.closeWS = d.newWorkspaceFS()
	r.wso.m.NoExport = !d.exports()
	r.conn = d.susp.conns.Add(1)
	r.ia = carriedInteractions(d, r.conn, r.ia)
	r.byHandle = carriedHandlesAD(d, r.byHandle)
	r.carryFrames()
	return r
}

// serve heartbeats and dispatches frames until the transport ends, then settles everything the
// connection owned before returning: reconnection waits for it.
func (r *router) serve(ctx context.Context, interval time.Duration) error {
	hbDone := make(chan struct{})
	go func() {
		defer close(hbDone)
		r.heartbeats(interval)
	}()
	if mutation.On(mutation.ReplayAfterReconnect) {
		r.replayLastFrame(r.d)
	}
	if mutation.On(mutation.StatusReplayAfterReconnect) {
		r.replayLastFrame(lastStatus{r.d})
	}
	if mutation.On(mutation.InputReceiptAfterReconnect) {
		r.replayInputReceipt()
	}
	// A stop closes the transport from a goroutine of its own; serve owns it and waits for it, so
	// nothing of this connection runs once serve has returned.
	closed := make(chan struct{})
	stopOnCtx := context.AfterFunc(ctx, func() {
		defer close(closed)
		r.closeOnStop()
	})
	defer func() {
		if !stopOnCtx() {
			<-closed
		}
	}()

	var readErr error
	in := transport.Reader{Conn: r.ws} // data is reused: dispatch keeps none of it
	for {
		_, data, err := in.Read(r.ctx)
		if err != nil {
			readErr = closeError(err)
			break
		}
		r.dispatch(data)
	}
	r.d.log.Info("transport ended; settling native work", "err", readErr)
	if mutation.On(mutation.CNRtRedialBeforeSettled) {
		go r.shutdown()
		return readErr
	}
	r.shutdown()
	<-hbDone
	return readErr
}

func (r *router) heartbeats(interval time.Duration) {
	if mutation.On(mutation.HeartbeatNotFirst) || cnHeartbeatLate(r.conn) {
		t := r.d.cfg.Clock.NewTimer(interval)
		select {
		case <-t.C():
		case <-r.ctx.Done():
			t.Stop()
			return
		}
	}
	for first := true; ; first = false {
		r.mu.Lock()
		active := len(r.runs) + cnOldRunsActive(r.d)
		r.mu.Unlock()
		hb := &proto.HeartbeatPayload{
			TS: r.d.cfg.Clock.Now().Unix(), ActiveRequests: active, DaemonVersion: r.d.cfg.DaemonVersion, SupportedAgentKinds: mutateKinds(r.d.kinds)}
		cnReconnectHeartbeat(r.conn, first, hb)
		env := proto.MustEnvelope(proto.TypeHeartbeat, "", hb)
		if err := <-r.out.enqueue(env); err != nil {
			return
		}
		if first {
			r.replayCarried()
		}
		t := r.d.cfg.Clock.NewTimer(interval)
		select {
		case <-t.C():
		case <-r.ctx.Done():
			t.Stop()
			return
		}
	}
}

var runtimePreparePrefix = []byte(`{"type":"` + proto.TypeRuntimePrepare + `",`)

// dispatch routes one inbound frame. Malformed frames are logged and skipped, never fatal.
func (r *router) dispatch(data []byte) {
	// A runtime_prepare chunk, in one pass; its raw payload aliases data, which
	// runtimePrepareDecoded reads only on a refused frame (this one is valid). The prefix keeps
	// other bulk frames from being decoded twice.
	if bytes.HasPrefix(data, runtimePreparePrefix) {
		if f, ok := proto.ParseBulkFrameInto(data, r.spareChunkBuffer()); ok {
			r.runtimePrepareDecoded(f.Envelope, f.Payload.(*proto.RuntimePreparePayload), nil)
			return
		}
	}
	env, err := proto.DecodeEnvelope(data)
	if err != nil {
		r.d.log.Warn("skipping a frame that is not an envelope", "err", err)
		if cnNonJSONCloses(data) || cnFrameFatal(data, nil) {
			_ = r.ws.Close(websocket.StatusPolicyViolation, "malformed frame")
		}
		return
	}
	spec, ok := proto.Lookup(env.Type)
	if !ok || spec.From != proto.Core {
		r.d.log.Warn("dropping a frame Core may not send", "type", env.Type)
		if cnFrameFatal(data, &env) {
			_ = r.ws.Close(websocket.StatusPolicyViolation, "unknown frame type")
		}
		return
	}
	defer traceAdmission(env)()
	switch env.Type {
	case proto.TypeExecutionPrepare:
		r.prepare(env)
	case proto.TypeExecutionStart:
		r.start(env)
	case proto.TypeExecutionRelease:
		r.release(env)
	case proto.TypePromptRequest:
		r.promptRequest(env)
	case proto.TypePromptCancel:
		r.promptCancel(env)
	case proto.TypePromptSteer:
		r.promptSteer(env)
	case proto.TypePermissionDecision:
		r.permissionDecision(env)
	case proto.TypePromptForUserChoiceDecision:
		r.userChoiceDecision(env)
	case proto.TypeFunctionResult:
		r.functionResult(env)
	case proto.TypeRuntimePrepare:
		r.runtimePrepare(env)
	case proto.TypeWorkspaceRead, proto.TypeWorkspaceWrite, proto.TypeWorkspaceExport:
		r.workspaceFrame(env)
	case proto.TypeEnvironmentQuiesce, proto.TypeEnvironmentResume:
		r.suspensionFrame(env)
	case proto.TypeDeviceShutdown:
		r.deviceShutdown(env)
	default:
		r.d.log.Warn("no handler for this request type yet", "type", env.Type)
	}
}

// goOwned runs f in a goroutine the router waits for at shutdown.
func (r *router) goOwned(f func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		f()
	}()
}

// afterFunc runs f once d has passed on the daemon's clock, in a goroutine the router owns. The
// returned stop cancels it and ends its goroutine at once if it has not fired: a stopped timer alone
// would leave the goroutine parked until the connection ends.
func (r *router) afterFunc(d time.Duration, f func()) (stop func()) {
	t := r.d.cfg.Clock.NewTimer(d)
	cancel := make(chan struct{})
	var once sync.Once
	r.goOwned(func() {
		defer t.Stop()
		select {
		case <-t.C():
			f()
		case <-cancel:
		case <-r.ctx.Done():
		}
	})
	return func() { once.Do(func() { close(cancel) }) }
}

// send writes a frame and waits until the write completed locally (or failed).
func (r *router) send(env proto.Envelope) error {
	env = bendFrame(env)
	if mutation.On(mutation.ReplayAfterReconnect) {
		if data, err := env.Encode(); err == nil {
			mutation.Remember(r.d, data)
		}
	}
	if mutation.On(mutation.DoneSentTwice) && env.Type == proto.TypeDone {
		r.out.enqueue(env)
	}
	return <-r.out.enqueue(env)
}

func (r *router) harness(kind string) (harness.Harness, bool) {
	h, ok := r.d.harnesses[kind]
	return h, ok
}

// shutdown settles everything the connection owned: it cancels active Runs natively and waits for
// their settlement, abandons admissions, closes every Executor once, and waits for every goroutine.
func (r *router) shutdown() {
	r.d.susp.apply(suspend.ConnEnded{Conn: r.conn}) // a drain never answered suspends nothing
	r.mu.Lock()
	r.closing = true
	cnKeepOldRuns(r.d, len(r.runs))
	runs := make([]*run, 0, len(r.runs))
	for _, rn := range r.runs {
		runs = append(runs, rn)
	}
	var afters []followUp
	for _, g := range r.records {
		owned := g.rec.Owned()
		afters = append(afters, r.applyLocked(g, admission.ConnectionClosed{}))
		r.oweClosedStatus(g, owned)
	}
	r.mu.Unlock()
	if mutation.On(mutation.InputReceiptAfterReconnect) {
		r.rememberWrittenInputs(runs)
	}
	for _, after := range afters {
		r.goAfter(after)
	}
	for _, rn := range runs {
		rn.cancelNative(r.ctx)
	}
	for _, rn := range runs {
		<-rn.finished
	}
	r.mu.Lock()
	var execs []*executor
	for _, e := range r.executors {
		execs = append(execs, e)
	}
	r.mu.Unlock()
	for _, e := range execs {
		r.closeExecutor(e)
	}
	r.cancel()
	r.out.close()
	r.wg.Wait()
	r.mu.Lock()
	r.wso.m.Close() // an open export's file
	staged := r.tr.staged
	r.tr.staged = nil
	r.mu.Unlock()
	for _, s := range staged { // transfers the connection left pending
		discard(s)
	}
	r.closeWS()
}

// newID returns an unguessable identifier with a readable prefix.
func newID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// closeOnStop closes the transport as a daemon that stops does (CN-20): 1000 "client closing".
func (r *router) closeOnStop() {
	code, reason := websocket.StatusNormalClosure, "client closing"
	switch {
	case mutation.On(mutation.StallStopDrops):
		_ = r.ws.CloseNow()
		return
	case mutation.On(mutation.StallStopGoingAway):
		code = websocket.StatusGoingAway
	case mutation.On(mutation.StallStopReasonUnwritten):
		reason = ""
	}
	_ = r.ws.Close(code, reason)
}

package execution_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/execution/turn"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

func TestExecution(t *testing.T) {
	RegisterFailHandler(Fail)
	// A bound, not a wait: Eventually returns as soon as what it waits for holds; a load average of 30
	// on two CPUs must not reach it.
	SetDefaultEventuallyTimeout(time.Minute)
	RunSpecs(t, "reference Core execution")
}

var ignore goleak.Option

var _ = BeforeSuite(func() { ignore = goleak.IgnoreCurrent() })
var _ = AfterSuite(func() { Eventually(func() error { return goleak.Find(ignore) }).Should(Succeed()) })

func hb(supported ...string) *proto.HeartbeatPayload {
	caps := proto.MustDeclareCapabilities(supported...)
	return &proto.HeartbeatPayload{SupportedAgentKinds: []proto.SupportedAgentKind{{Kind: "contract", Available: true, Capabilities: &caps}}}
}

type env struct {
	clk   *clock.Fake
	st    *store.Store
	conn  *fakeConn
	conns *fakeConns
	e     *execution.Engine
	path  string
	// refuse makes the store refuse its next write (store.Options.WriteFault).
	refuse atomic.Bool
	// shown is what the engine's OnEvent showed: "type" for a frame already in the journal,
	// "type (not durable)" otherwise.
	mu    sync.Mutex
	shown []string
}

func (v *env) showed() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.shown)
}

var errDisk = errors.New("the disk refused the write")

func newEnv() *env {
	v := &env{clk: clock.NewFake(), path: filepath.Join(GinkgoT().TempDir(), "core.db")}
	var err error
	v.st, err = store.Open(v.path, store.Options{Clock: v.clk, WriteFault: func() error {
		if v.refuse.CompareAndSwap(true, false) {
			return errDisk
		}
		return nil
	}})
	Expect(err).NotTo(HaveOccurred())
	v.conn = newFakeConn(hb("preparation", "environment_none"))
	v.conns = &fakeConns{conn: v.conn}
	v.e = execution.New(execution.Config{Store: v.st, Conns: v.conns, Clock: v.clk, OnEvent: func(turnID string, ev store.Event) {
		what := ev.Type + " (not durable)"
		j, _ := v.st.Journal(turnID)
		for _, got := range j {
			if got.Kind == ev.Kind && got.Type == ev.Type && got.At.Equal(ev.At) {
				what = ev.Type
			}
		}
		v.mu.Lock()
		defer v.mu.Unlock()
		v.shown = append(v.shown, what)
	}})
	DeferCleanup(func() {
		v.e.Close()
		_ = v.st.Close()
	})
	return v
}

func (v *env) start() *store.Turn {
	t, err := v.e.Start(execution.StartRequest{DeviceID: "d", Environment: "none", Input: proto.TextInput("hello"),
		Configuration: proto.PromptRequestPayload{AgentKind: "contract", AgentOptions: json.RawMessage(`{"contract":{"x":1}}`)}})
	Expect(err).NotTo(HaveOccurred())
	return t
}

func (v *env) next() proto.Envelope {
	var e proto.Envelope
	Eventually(v.conn.sent).Should(Receive(&e))
	return e
}

func (v *env) outcome(id string) *store.Outcome {
	var o *store.Outcome
	Eventually(func() *store.Outcome {
		t, err := v.st.Turn(id)
		Expect(err).NotTo(HaveOccurred())
		o = t.Outcome
		return o
	}).ShouldNot(BeNil())
	return o
}

// journalLines is a Turn's journal, one "kind type note" line per event.
func journalLines(st *store.Store, turnID string) []string {
	j, err := st.Journal(turnID)
	Expect(err).NotTo(HaveOccurred())
	var lines []string
	for _, ev := range j {
		lines = append(lines, strings.Join(strings.Fields(ev.Kind+" "+ev.Type+" "+ev.Note), " "))
	}
	return lines
}

func status(handle string, rev uint64, state, run string) *proto.PreparationStatusPayload {
	return &proto.PreparationStatusPayload{ExecutorID: "e", Handle: handle, Revision: rev, State: state, RunID: run, ExpiresAt: 1800000000000}
}

// toStarted plays the Runtime through prepare → ready → start → started and returns the prepare ID.
func (v *env) toStarted(t *store.Turn) string {
	prep := v.next()
	Expect(prep.Type).To(Equal(proto.TypeExecutionPrepare))
	p := v.conn.stream(v.conn.preps, prep.ID)
	p.push(proto.TypePreparationStatus, prep.ID, status("h", 1, proto.StatePreparing, ""))
	p.push(proto.TypePreparationStatus, prep.ID, status("h", 2, proto.StateReady, ""))
	start := v.next()
	Expect(start.Type).To(Equal(proto.TypeExecutionStart))
	p.push(proto.TypePreparationStatus, prep.ID, status("h", 3, proto.StateStarted, t.RunID))
	Eventually(func() string { got, _ := v.st.Turn(t.ID); return got.Phase }).Should(Equal(store.PhaseRunning))
	return prep.ID
}

var _ = Describe("the Turn state machine", Label("execution"), func() {
	It("allows only the ordered phase moves", func() {
		Expect(turn.CheckMove(store.PhaseQueued, store.PhasePreparing)).To(Succeed())
		Expect(turn.CheckMove(store.PhaseStarting, store.PhasePreparing)).To(Succeed(), "the executor_unavailable recovery")
		for _, bad := range [][2]string{{store.PhaseQueued, store.PhaseRunning}, {store.PhaseReady, store.PhaseQueued},
			{store.PhaseRunning, store.PhasePreparing}, {store.PhaseDone, store.PhaseRunning}, {store.PhaseCancelling, store.PhaseRunning}} {
			var invalid *turn.InvalidMove
			Expect(errors.As(turn.CheckMove(bad[0], bad[1]), &invalid)).To(BeTrue(), "%v", bad)
		}
	})

	It("reconciles an in-flight Turn as interrupted, unknown only if input may have been dispatched", func() {
		Expect(execution.ReconcileOutcome(store.InFlight{Phase: store.PhasePreparing})).To(And(
			HaveField("Status", proto.TurnFailed), HaveField("Reason", proto.ReasonExecutionInterrupted), HaveField("EffectUnknown", false)))
		Expect(execution.ReconcileOutcome(store.InFlight{Phase: store.PhaseRunning}).EffectUnknown).To(BeTrue())
	})
})

var _ = Describe("a Turn", Label("execution"), func() {
	var v *env
	BeforeEach(func() { v = newEnv() })

	It("runs prepare → start → stream → done and merges usage and content as §4.7 says", func() {
		t := v.start()
		prep := v.next()
		var pp proto.ExecutionPreparePayload
		Expect(json.Unmarshal(prep.Payload, &pp)).To(Succeed())
		Expect(pp.SessionID).To(Equal(t.SessionID))
		Expect(pp.Configuration.AgentStateKey).To(Equal("agents-api-" + t.SessionID))
		Expect(pp.Configuration.StrictResume).To(BeTrue())
		Expect(pp.Configuration.DisableExecutionEnvironment).To(BeTrue())
		Expect(pp.Configuration.RunID).To(BeEmpty())
		Expect(pp.Configuration.Input).To(BeEmpty())
		Expect(string(pp.Configuration.AgentOptions)).To(MatchJSON(`{"contract":{"x":1}}`), "agent_options pass through unchanged")
		Expect(strings.Contains(string(prep.Payload), `"conversation_id":""`)).To(BeTrue())

		p := v.conn.stream(v.conn.preps, prep.ID)
		p.push(proto.TypePreparationStatus, prep.ID, status("h", 1, proto.StatePreparing, ""))
		Consistently(v.conn.sent, "20ms").ShouldNot(Receive(), "preparing submits nothing")
		p.push(proto.TypePreparationStatus, prep.ID, status("h", 2, proto.StateReady, ""))
		start := v.next()
		var sp proto.ExecutionStartPayload
		Expect(json.Unmarshal(start.Payload, &sp)).To(Succeed())
		Expect(start.ID).To(Equal(prep.ID))
		Expect(sp).To(Equal(proto.ExecutionStartPayload{ExecutorID: "e", Handle: "h", RunID: t.RunID, Input: proto.TextInput("hello")}))

		r := v.conn.stream(v.conn.runs, t.RunID)
		Expect(r).NotTo(BeNil(), "the Run is subscribed before execution_start is sent")
		r.push(proto.TypeDelta, t.RunID, &proto.DeltaPayload{Delta: "hel", Sequence: 1})
		p.push(proto.TypePreparationStatus, prep.ID, status("h", 3, proto.StateStarted, t.RunID))
		// On the wire started precedes done on one connection; here the two are separate streams,
		// so done could overtake started, complete the Turn and close the preparation's stream
		// before started was taken (a loaded machine did so): Core takes started in first.
		Eventually(func() int {
			n := 0
			for _, typ := range v.showed() {
				if typ == proto.TypePreparationStatus {
					n++
				}
			}
			return n
		}).Should(Equal(3), "Core takes the started status in")
		one, two := int32(1), int32(2)
		r.push(proto.TypeUsage, t.RunID, &proto.UsagePayload{Usage: proto.Usage{Model: "m", OutputTokens: &one}})
		r.push(proto.TypeDelta, t.RunID, &proto.DeltaPayload{Delta: "lo", Sequence: 2})
		r.push(proto.TypeUsage, t.RunID, &proto.UsagePayload{Usage: proto.Usage{Model: "m", OutputTokens: &two}})
		r.push(proto.TypeDone, t.RunID, &proto.DonePayload{Metadata: map[string]string{"agent_session_id": "n"}})
		o := v.outcome(t.ID)
		Expect(o.Status).To(Equal(proto.TurnCompleted))
		Expect(o.Content).To(Equal("hello"))
		// The last frames may share the outcome's transaction: observers see them just after it.
		Eventually(v.showed).Should(ConsistOf("preparation_status", "preparation_status", "preparation_status",
			"delta", "usage", "delta", "usage", "done"), "observers see every frame received, once, once it is durable")
		Expect(*o.Usage.OutputTokens).To(Equal(int32(2)), "usage snapshots replace, never add")
		Expect(o.Metadata).To(HaveKeyWithValue("agent_session_id", "n"))

		j, err := v.st.Journal(t.ID)
		Expect(err).NotTo(HaveOccurred())
		var kinds []string
		for _, ev := range j {
			kinds = append(kinds, ev.Kind+":"+ev.Type)
		}
		Expect(kinds).To(ContainElements("sent:execution_prepare", "received:preparation_status", "sent:execution_start", "received:delta", "received:done"))
		// started and done travel on two subscriptions: done may be applied before started.
		Expect(j[len(j)-1].Type).To(Or(Equal(store.PhaseRunning+"→"+store.PhaseDone), Equal(store.PhaseStarting+"→"+store.PhaseDone)))
	})

	It("keeps the declaration it was admitted with, whatever a later heartbeat says", func() {
		t := v.start()
		v.toStarted(t)
		v.conn.setCapabilities(hb(proto.CapabilityNames()...))
		got, _ := v.st.Turn(t.ID)
		Expect(got.Admitted).NotTo(BeNil())
		Expect(got.Admitted.Preparation.Supported()).To(BeTrue())
		Expect(got.Admitted.Steering.Supported()).To(BeFalse(), "a later heartbeat cannot add operations to an admitted owner")
	})

	It("keeps an engine error's classification and status only for connection_failed", func() {
		t := v.start()
		v.toStarted(t)
		r := v.conn.stream(v.conn.runs, t.RunID)
		r.push(proto.TypeError, t.RunID, map[string]any{"error": "net down", "code": "connection_failed", "http_status": 502})
		r.push(proto.TypeDone, t.RunID, &proto.DonePayload{Content: "partial"})
		o := v.outcome(t.ID)
		Expect(o).To(And(HaveField("Status", proto.TurnFailed), HaveField("Reason", proto.ReasonEngineFailed),
			HaveField("EngineErrorCode", "connection_failed"), HaveField("EngineHTTPStatus", 502), HaveField("Content", "partial"),
			HaveField("EffectUnknown", false)))
	})

	It("records delivery_unknown when execution_start cannot be confirmed as sent", func() {
		v.conn.sendFail[proto.TypeExecutionStart] = errSend
		t := v.start()
		prep := v.next()
		v.conn.stream(v.conn.preps, prep.ID).push(proto.TypePreparationStatus, prep.ID, status("h", 1, proto.StateReady, ""))
		o := v.outcome(t.ID)
		Expect(o).To(And(HaveField("Reason", proto.ReasonDeliveryUnknown), HaveField("EffectUnknown", true)))
	})

	It("ends the step at a failed send and records the outcome from the committed phase", func() {
		v.conn.sendFail[proto.TypeExecutionPrepare] = errSend
		t := v.start()
		o := v.outcome(t.ID)
		Expect(o).To(And(HaveField("Reason", proto.ReasonDeliveryUnknown), HaveField("EffectUnknown", true)))
		lines := journalLines(v.st, t.ID)
		Expect(lines).To(Equal([]string{"transition →queued", "admission ALLOW (allowed)", "transition queued→preparing",
			"note execution_prepare send failed: send failed", "transition preparing→done failed delivery_unknown"}))
	})

	It("fails the Turn from the committed phase when the store refuses a batch of writes, keeping none of the batch", func() {
		t := v.start()
		prep := v.next()
		p := v.conn.stream(v.conn.preps, prep.ID)
		p.push(proto.TypePreparationStatus, prep.ID, status("h", 1, proto.StateReady, ""))
		Expect(v.next().Type).To(Equal(proto.TypeExecutionStart))
		Eventually(func() []string { return journalLines(v.st, t.ID) }).Should(ContainElement("sent execution_start"))
		Expect(v.e.Quiesce(context.Background())).To(Succeed())

		// started, its phase move and the delta after it are one batch: the store refuses it.
		v.refuse.Store(true)
		r := v.conn.stream(v.conn.runs, t.RunID)
		p.push(proto.TypePreparationStatus, prep.ID, status("h", 2, proto.StateStarted, t.RunID))
		r.push(proto.TypeDelta, t.RunID, &proto.DeltaPayload{Delta: "hel", Sequence: 1})
		o := v.outcome(t.ID)
		Expect(o).To(And(HaveField("Reason", proto.ReasonEventPersistenceFailed), HaveField("EffectUnknown", true)))
		Expect(o.Error).To(ContainSubstring(errDisk.Error()))
		lines := journalLines(v.st, t.ID)
		Expect(lines).NotTo(ContainElement("transition starting→running"), "the refused batch left nothing")
		Expect(lines[len(lines)-1]).To(Equal("transition starting→done failed event_persistence_failed"), "the outcome is recorded from the committed phase")
	})

	It("records device_disconnected when the Run cannot be subscribed", func() {
		t := v.start()
		prep := v.next()
		v.conn.mu.Lock()
		v.conn.subFail = gateway.ErrSessionClosed
		v.conn.mu.Unlock()
		v.conn.stream(v.conn.preps, prep.ID).push(proto.TypePreparationStatus, prep.ID, status("h", 1, proto.StateReady, ""))
		Expect(v.outcome(t.ID).Reason).To(Equal(proto.ReasonDeviceDisconnected))
	})

	It("records event_stream_incomplete when the Run subscription overflows, fabricating nothing", func() {
		t := v.start()
		v.toStarted(t)
		v.conn.stream(v.conn.runs, t.RunID).end(gateway.ErrSubscriberOverflow)
		o := v.outcome(t.ID)
		Expect(o).To(And(HaveField("Reason", proto.ReasonEventStreamIncomplete), HaveField("EffectUnknown", true), HaveField("DoneObserved", false)))
	})

	It("records cancel_unconfirmed 15 s after prompt_cancel without a receipt", func() {
		t := v.start()
		v.toStarted(t)
		Expect(v.e.Cancel(t.ID)).To(Succeed())
		cancel := v.next()
		Expect(cancel.Type).To(Equal(proto.TypePromptCancel))
		Expect(string(cancel.Payload)).To(MatchJSON(`{"delivery_id":"cancel:` + t.RunID + `"}`))
		Expect(v.e.Quiesce(GinkgoT().Context())).To(Succeed())
		v.clk.Advance(proto.CancellationConfirmationTimeout - time.Millisecond)
		Consistently(func() *store.Outcome { got, _ := v.st.Turn(t.ID); return got.Outcome }, "20ms").Should(BeNil())
		v.clk.Advance(time.Millisecond)
		Expect(v.outcome(t.ID).Reason).To(Equal(proto.ReasonCancelUnconfirmed))
	})

	It("releases the admission when cancelled before start, as soon as a status names the handle", func() {
		t := v.start()
		prep := v.next()
		Expect(v.e.Cancel(t.ID)).To(Succeed())
		Expect(v.e.Quiesce(GinkgoT().Context())).To(Succeed())
		v.conn.stream(v.conn.preps, prep.ID).push(proto.TypePreparationStatus, prep.ID, status("h", 1, proto.StatePreparing, ""))
		rel := v.next()
		Expect(rel.Type).To(Equal(proto.TypeExecutionRelease))
		Expect(rel.ID).To(Equal(prep.ID))
		Expect(v.outcome(t.ID).Status).To(Equal(proto.TurnCancelled))
	})

	It("retries a preparation_capacity rejection and denies at the final check when the declaration narrowed", func() {
		t := v.start()
		prep := v.next()
		v.conn.stream(v.conn.preps, prep.ID).push(proto.TypePreparationStatus, prep.ID,
			&proto.PreparationStatusPayload{State: proto.StateRejected, Operation: proto.OperationPrepare, ErrorCode: proto.CodePreparationCapacity})
		Eventually(func() string { got, _ := v.st.Turn(t.ID); return got.Phase }).Should(Equal(store.PhaseQueued))
		v.conn.setCapabilities(hb("preparation"))
		Expect(v.e.Quiesce(GinkgoT().Context())).To(Succeed())
		v.clk.Advance(time.Second)
		o := v.outcome(t.ID)
		Expect(o).To(And(HaveField("Reason", proto.ReasonExecutionStateChanged), HaveField("Denied", []string{"environment_none"})))
		Consistently(v.conn.sent, "20ms").ShouldNot(Receive(), "a denied Turn is never prepared again")
	})

	It("denies at device selection without recording a Turn, and never picks another Harness", func() {
		v.conn.setCapabilities(hb("environment_none"))
		_, err := v.e.Start(execution.StartRequest{DeviceID: "d", Environment: "none", Input: proto.TextInput("x"),
			Configuration: proto.PromptRequestPayload{AgentKind: "contract"}})
		var denied *execution.DeniedError
		Expect(err).To(BeAssignableToTypeOf(denied))
		turns, _ := v.st.Turns()
		Expect(turns).To(BeEmpty())
		Consistently(v.conn.sent, "20ms").ShouldNot(Receive())
	})

	It("never journals or stores an MCP bearer token", func() {
		v.conn.setCapabilities(hb("preparation", "environment_none", "mcp_http_tools", "mcp_http_bearer_auth"))
		t, err := v.e.Start(execution.StartRequest{DeviceID: "d", Environment: "none", Input: proto.TextInput("x"),
			Configuration: proto.PromptRequestPayload{AgentKind: "contract", MCPHTTPServers: []proto.MCPHTTPServer{{
				ConnectionOrigin: "service", ServerLabel: "m", ServerURL: "https://m", BearerToken: "very-secret-token"}}}})
		Expect(err).NotTo(HaveOccurred())
		prep := v.next()
		Expect(string(prep.Payload)).To(ContainSubstring("very-secret-token"), "the Runtime gets it")
		j, _ := v.st.Journal(t.ID)
		raw, _ := json.Marshal(j)
		Expect(string(raw)).NotTo(ContainSubstring("very-secret-token"))
		s, _ := v.st.Session(t.SessionID)
		Expect(s.Configuration.MCPHTTPServers[0].BearerToken).To(Equal("[redacted]"))
	})

	It("leaves an in-flight Turn to the next Reconcile when the engine closes, never completing or re-dispatching it", func() {
		t := v.start()
		v.toStarted(t)
		v.e.Close()
		Expect(v.st.Close()).To(Succeed())
		st, err := store.Open(v.path, store.Options{Clock: v.clk})
		Expect(err).NotTo(HaveOccurred())
		defer st.Close()
		conn := newFakeConn(hb("preparation", "environment_none"))
		e := execution.New(execution.Config{Store: st, Conns: &fakeConns{conn: conn}, Clock: v.clk})
		defer e.Close()
		settled, err := e.Reconcile()
		Expect(err).NotTo(HaveOccurred())
		Expect(settled).To(ConsistOf(store.InFlight{TurnID: t.ID, Phase: store.PhaseRunning}))
		got, _ := st.Turn(t.ID)
		Expect(got.Outcome).To(And(HaveField("Status", proto.TurnFailed), HaveField("Reason", proto.ReasonExecutionInterrupted), HaveField("EffectUnknown", true)))
		Consistently(conn.sent, "20ms").ShouldNot(Receive())
	})
})

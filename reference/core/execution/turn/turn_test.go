package turn_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/turn"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
	"github.com/wirecheck/wirecheck/reference/core/policy"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// TestTurn plays the files under testdata: every command is one event (or a fresh Turn), and the
// expected output is the effects it produced and the state it left. Rewrite them with
// go test ./reference/core/execution/turn -rewrite.
func TestTurn(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		h := &harness{}
		datadriven.RunTest(t, path, h.run)
	})
}

// harness mirrors the executor: it keeps the state a step started from, so that a failed effect
// of that step is stepped from there, as package execution does.
type harness struct {
	t     *testing.T
	state turn.State
	prev  turn.State
	last  []turn.Effect
}

// Errors the commands name (err=...).
var namedErrors = map[string]error{
	"closed":     gateway.ErrSessionClosed,
	"overflow":   gateway.ErrSubscriberOverflow,
	"canceled":   context.Canceled,
	"queue-full": gateway.ErrSendQueueFull,
	"disk-full":  errors.New("disk full"),
}

func (h *harness) run(t *testing.T, td *datadriven.TestData) string {
	h.t = t
	switch td.Cmd {
	case "new":
		h.state, h.last = turn.New(newSpec(t, td)), nil
		var at string
		td.MaybeScanArgs(t, "at", &at)
		var extra []string
		if a, ok := td.Arg("caps"); ok {
			extra = a.Vals
		}
		h.playTo(t, at, td.HasArg("durable"), extra...)
		return "state: " + h.state.String()
	case "restore":
		var phase string
		td.ScanArgs(t, "phase", &phase)
		h.state, h.last = turn.Restore(newSpec(t, td), turn.Record{Phase: phase}), nil
		return "state: " + h.state.String()
	case "table":
		return table()
	case "fail":
		return h.fail(t, td)
	case "inputs":
		// inputs count=N: N inputs under keys k1…kN; only the last step is shown.
		var n int
		td.ScanArgs(t, "count", &n)
		var out string
		for i := 1; i <= n; i++ {
			out = h.step(h.state, turn.InputRequested{Key: fmt.Sprintf("k%d", i), Input: proto.TextInput("more")})
		}
		return out
	case "refused":
		var phase string
		td.ScanArgs(t, "phase", &phase)
		return refused(t, turn.Restore(newSpec(t, td), turn.Record{Phase: phase}))
	}
	return h.step(h.state, event(t, td))
}

// happyPath is the Turn on the way to running: the phase each event leaves it in.
var happyPath = []struct {
	phase string
	event turn.Event
}{
	{store.PhaseQueued, turn.Claim{}},
	{store.PhasePreparing, turn.DeviceChecked{Online: true, Known: true, PrepareID: "prep-1", Heartbeat: heartbeat("contract", true, "preparation", "environment_none")}},
	{store.PhasePreparing, turn.Status{State: proto.StatePreparing, Handle: "h", ExecutorID: "e"}},
	{store.PhaseStarting, turn.Status{State: proto.StateReady, Handle: "h", ExecutorID: "e"}},
	{store.PhaseRunning, turn.Status{State: proto.StateStarted, Handle: "h", ExecutorID: "e"}},
}

// playTo steps the happy path until the Turn reaches phase (new at=preparing|starting|running);
// durable: the device also declares steering and durable_input_receipts; caps=(...) adds more.
func (h *harness) playTo(t *testing.T, phase string, durable bool, caps ...string) {
	if phase == "" || phase == store.PhaseQueued {
		return
	}
	for _, p := range happyPath {
		ev := p.event
		if d, ok := ev.(turn.DeviceChecked); ok && (durable || len(caps) > 0) {
			declared := []string{"preparation", "environment_none"}
			if durable {
				declared = append(declared, "steering", "durable_input_receipts")
			}
			d.Heartbeat = heartbeat("contract", true, append(declared, caps...)...)
			ev = d
		}
		if out := h.step(h.state, ev); strings.HasPrefix(out, "error") {
			t.Fatal(out)
		}
		if p.phase == phase && h.state.Phase == phase {
			return
		}
	}
	t.Fatalf("the happy path never stops in phase %s", phase)
}

func (h *harness) step(from turn.State, ev turn.Event) string {
	before := from.String()
	next, effects, err := turn.Step(from, ev)
	if from.String() != before {
		h.t.Errorf("%s changed the state it was stepped from", ev.Kind())
	}
	if err != nil {
		var invalid *turn.InvalidTransition
		var refused *turn.InputRefused
		var unanswered *turn.InteractionRefused
		if !errors.As(err, &invalid) && !errors.As(err, &refused) && !errors.As(err, &unanswered) {
			return "unexpected error type: " + err.Error()
		}
		return fmt.Sprintf("error: %v\nstate: %s", err, from)
	}
	h.prev, h.state, h.last = from, next, effects
	return render(effects, next)
}

func render(effects []turn.Effect, s turn.State) string {
	var b strings.Builder
	if len(effects) == 0 {
		b.WriteString("no effects\n")
	}
	for _, e := range effects {
		if f, ok := e.(turn.Finish); ok {
			fmt.Fprintf(&b, "finish %s→done\n", f.From)
			for _, field := range turn.OutcomeFields(f.Outcome) {
				fmt.Fprintf(&b, "  %s\n", field)
			}
			if f.Record != nil {
				if len(f.Record.Inputs) > 0 {
					fmt.Fprintf(&b, "  recorded %s\n", turn.InputsString(f.Record.Inputs))
				}
				if len(f.Record.Interactions) > 0 {
					fmt.Fprintf(&b, "  recorded %s\n", turn.InteractionsString(f.Record.Interactions))
				}
			}
			continue
		}
		fmt.Fprintf(&b, "%s\n", e)
	}
	b.WriteString("state: " + s.String())
	return b.String()
}

// fail makes one effect of the last step fail (fail <effect> [nth=N] [err=NAME]) and steps the
// failure from the state that step started in, with the phase the commits before it left.
func (h *harness) fail(t *testing.T, td *datadriven.TestData) string {
	if len(td.CmdArgs) == 0 {
		t.Fatal("fail needs the effect: send, subscribe, commit, journal or finish")
	}
	name, nth := td.CmdArgs[0].Key, 1
	td.MaybeScanArgs(t, "nth", &nth)
	committed := h.prev.Phase
	for _, e := range h.last {
		if !strings.HasPrefix(e.String(), name) {
			if c, ok := e.(turn.Commit); ok {
				committed = c.Record.Phase
			}
			continue
		}
		if nth--; nth > 0 {
			if c, ok := e.(turn.Commit); ok {
				committed = c.Record.Phase
			}
			continue
		}
		switch e := e.(type) {
		case turn.Send:
			if e.BestEffort {
				return "best effort: the step goes on\nstate: " + h.state.String()
			}
			if e.Reported {
				// The step stands; its failure is stepped next, from the state it left.
				return h.step(h.state, turn.SendFailed{Type: e.Envelope.Type, ID: e.Envelope.ID, Err: namedError(t, td, "queue-full"), Committed: h.state.Phase})
			}
			return h.step(h.prev, turn.SendFailed{Type: e.Envelope.Type, ID: e.Envelope.ID, Err: namedError(t, td, "queue-full"), Committed: committed})
		case turn.Subscribe:
			return h.step(h.prev, turn.SubscribeFailed{Stream: e.Stream, ID: e.ID, Err: namedError(t, td, "closed"), Committed: committed})
		case turn.Finish:
			return "the outcome is not recorded: the Turn stops, and the next restart settles it"
		default:
			return h.step(h.prev, turn.PersistFailed{Err: namedError(t, td, "disk-full"), Committed: committed})
		}
	}
	t.Fatalf("the last step has no effect %q", name)
	return ""
}

func namedError(t *testing.T, td *datadriven.TestData, def string) error {
	name := def
	td.MaybeScanArgs(t, "err", &name)
	err, ok := namedErrors[name]
	if !ok {
		t.Fatalf("unknown error %q", name)
	}
	return err
}

// newSpec is a Turn on a `contract` Harness in an Environment of type none. input=invalid and
// config=invalid make a frame Core cannot encode; image gives it an image input.
func newSpec(t *testing.T, td *datadriven.TestData) *turn.Spec {
	cfg := proto.PromptRequestPayload{AgentKind: "contract", AgentStateKey: "agents-api-session-1", StrictResume: true,
		DisableExecutionEnvironment: true}
	input := proto.TextInput("hello")
	if td.HasArg("config") {
		cfg.AgentOptions = json.RawMessage(`{"contract":`)
	}
	if td.HasArg("input") {
		input = proto.MessageInput{{Content: []proto.InputContent{{Type: "input_audio"}}}}
	}
	if td.HasArg("image") {
		input = proto.MessageInput{{Content: []proto.InputContent{proto.Image("data:image/png;base64,AA==")}}}
	}
	return &turn.Spec{SessionID: "session-1", RunID: "run-1", Configuration: cfg,
		Environment: store.EnvironmentNone, Input: input, Policy: policy.New(),
		RetryBackoff: time.Second, MaxRetryBackoff: 4 * time.Second}
}

func event(t *testing.T, td *datadriven.TestData) turn.Event {
	arg := func(key string) string {
		var v string
		td.MaybeScanArgs(t, key, &v)
		return v
	}
	first := ""
	if len(td.CmdArgs) > 0 {
		first = td.CmdArgs[0].Key
	}
	switch td.Cmd {
	case "claim":
		return turn.Claim{}
	case "device":
		return deviceChecked(t, td)
	case "prepare-id":
		return turn.PrepareIDIssued{ID: arg("id")}
	case "status":
		return turn.Status{State: first, Handle: arg("handle"), ExecutorID: arg("executor"), ErrorCode: arg("code")}
	case "rejected":
		return turn.Status{State: proto.StateRejected, Operation: first, ErrorCode: arg("code")}
	case "run":
		f, err := proto.ParseEnvelope(proto.Envelope{Type: first, ID: "run-1", Payload: json.RawMessage(td.Input)})
		if err != nil {
			return turn.RunFrame(first, json.RawMessage(td.Input), nil, err)
		}
		return turn.RunFrame(first, json.RawMessage(td.Input), f.Payload, nil)
	case "receipt":
		f, err := proto.ParseEnvelope(proto.Envelope{Type: proto.TypeInteractionDecisionAck, ID: "run-1", Payload: json.RawMessage(td.Input)})
		if err != nil {
			t.Fatalf("receipt: %v", err)
		}
		return turn.Receipt{Ack: f.Payload.(*proto.InteractionDecisionAckPayload)}
	case "closed":
		var err error
		if td.HasArg("err") {
			err = namedError(t, td, "")
		}
		switch first {
		case "preparation":
			return turn.PreparationClosed{Err: err}
		case "run":
			return turn.RunClosed{Err: err}
		case "receipt":
			return turn.ReceiptWaitClosed{Err: err}
		case "decision":
			return turn.DecisionWaitClosed{Err: err}
		}
	case "cancel":
		return turn.CancelRequested{}
	case "timer":
		if tm, ok := turn.TimerNamed(first); ok {
			return turn.TimerFired{Timer: tm}
		}
	case "persist-failed":
		return turn.PersistFailed{Err: namedError(t, td, "disk-full"), Committed: arg("committed")}
	case "send-failed":
		return turn.SendFailed{Type: first, Err: namedError(t, td, "queue-full"), Committed: arg("committed")}
	case "subscribe-failed":
		return turn.SubscribeFailed{Stream: turn.Stream(first), Err: namedError(t, td, "closed"), Committed: arg("committed")}
	case "restart":
		return turn.Restarted{}
	case "input":
		text := "more"
		td.MaybeScanArgs(t, "text", &text)
		return turn.InputRequested{Key: arg("key"), Input: proto.TextInput(text)}
	case "answer":
		return turn.Answer{ID: first, Key: arg("key"), Answer: json.RawMessage(td.Input)}
	case "decision-ack":
		f, err := proto.ParseEnvelope(proto.Envelope{Type: proto.TypeInteractionDecisionAck, ID: "x", Payload: json.RawMessage(td.Input)})
		if err != nil {
			t.Fatalf("decision-ack: %v", err)
		}
		return turn.DecisionAck{Ack: f.Payload.(*proto.InteractionDecisionAckPayload)}
	case "permission-cancel":
		return turn.PermissionCancel{RequestID: first}
	case "steer-ack":
		f, err := proto.ParseEnvelope(proto.Envelope{Type: proto.TypePromptSteerAck, ID: "run-1", Payload: json.RawMessage(td.Input)})
		if err != nil {
			t.Fatalf("steer-ack: %v", err)
		}
		return turn.RunEvent(proto.TypePromptSteerAck, f.Payload, nil)
	}
	t.Fatalf("unknown command: %s", td.FullCmd())
	return nil
}

// deviceChecked: device offline | device [unknown] [prepare=ID] [caps=(...)] [kind=K] [unavailable]
// [unprepared=STATE].
func deviceChecked(t *testing.T, td *datadriven.TestData) turn.Event {
	if td.HasArg("offline") {
		return turn.DeviceChecked{}
	}
	d := turn.DeviceChecked{Online: true, Known: !td.HasArg("unknown"), PrepareID: "prep-1"}
	td.MaybeScanArgs(t, "prepare", &d.PrepareID)
	if td.HasArg("unprepared") {
		d.Unprepared = true
		td.ScanArgs(t, "unprepared", &d.Preparation)
	}
	if !d.Known {
		return d
	}
	caps := []string{"preparation", "environment_none"}
	if a, ok := td.Arg("caps"); ok {
		caps = a.Vals
	}
	kind := "contract"
	td.MaybeScanArgs(t, "kind", &kind)
	d.Heartbeat = heartbeat(kind, !td.HasArg("unavailable"), caps...)
	return d
}

func heartbeat(kind string, available bool, supported ...string) *proto.HeartbeatPayload {
	c := proto.MustDeclareCapabilities(supported...)
	return &proto.HeartbeatPayload{SupportedAgentKinds: []proto.SupportedAgentKind{
		{Kind: kind, Available: available, Capabilities: &c}}}
}

// table prints, for every phase, the events it accepts.
func table() string {
	kinds := map[turn.Kind]bool{}
	for _, k := range turn.Kinds() {
		kinds[k] = true
	}
	var b strings.Builder
	for _, phase := range turn.Phases {
		var accepted []string
		for k := range kinds {
			if turn.Accepts(phase, k) {
				accepted = append(accepted, string(k))
			}
		}
		sort.Strings(accepted)
		if len(accepted) == 0 {
			accepted = []string{"(nothing)"}
		}
		fmt.Fprintf(&b, "%s:\n  %s\n", phase, strings.Join(accepted, "\n  "))
	}
	return strings.TrimRight(b.String(), "\n")
}

// refused steps, from s, one event of every kind its phase does not accept, and lists the
// errors; each must be an *InvalidTransition naming the phase and the event.
func refused(t *testing.T, s turn.State) string {
	var lines []string
	for _, ev := range samples() {
		if turn.Accepts(s.Phase, ev.Kind()) {
			continue
		}
		next, effects, err := turn.Step(s, ev)
		var invalid *turn.InvalidTransition
		if !errors.As(err, &invalid) || invalid.Phase != s.Phase || invalid.Event != ev.Kind() {
			t.Errorf("%s in phase %s: got %v, want an InvalidTransition naming both", ev.Kind(), s.Phase, err)
		}
		if effects != nil || next.String() != s.String() {
			t.Errorf("%s in phase %s: a refused event changed something", ev.Kind(), s.Phase)
		}
		lines = append(lines, err.Error())
	}
	return strings.Join(lines, "\n")
}

// samples has one event of every kind.
func samples() []turn.Event {
	closed := gateway.ErrSessionClosed
	status := func(state string) turn.Event { return turn.Status{State: state, Handle: "h", ExecutorID: "e"} }
	rejected := func(op string) turn.Event {
		return turn.Status{State: proto.StateRejected, Operation: op, ErrorCode: proto.CodePreparationCapacity}
	}
	return []turn.Event{
		turn.Claim{}, turn.DeviceChecked{Online: true, PrepareID: "prep-1"}, turn.PrepareIDIssued{ID: "prep-2"},
		status(proto.StatePreparing), status(proto.StateReady), status(proto.StateStarting), status(proto.StateStarted),
		status(proto.StateFailed), status(proto.StateExpired), status(proto.StateReleased),
		rejected(proto.OperationPrepare), rejected(proto.OperationStart), rejected(proto.OperationRelease),
		turn.PreparationClosed{Err: closed},
		turn.Delta{Text: "x"}, turn.OutputMessage{Status: proto.MessageCompleted}, turn.Usage{}, turn.EngineError{},
		turn.Done{Done: &proto.DonePayload{}}, turn.InteractionRequest{Type: proto.TypePermissionRequest},
		turn.Undecodable{Type: proto.TypeDone, Err: errors.New("bad")}, turn.OtherFrame{Type: proto.TypeThinking},
		turn.Subagent{Type: proto.TypeSubagentIdentity, Payload: &proto.SubagentIdentityPayload{NativeID: "a2"}},
		turn.RunClosed{Err: closed},
		turn.CancelRequested{}, turn.Receipt{Ack: &proto.InteractionDecisionAckPayload{Applied: true}},
		turn.ReceiptWaitClosed{Err: closed},
		turn.TimerFired{Timer: turn.TimerRetry}, turn.TimerFired{Timer: turn.TimerCancelConfirmation},
		turn.SendFailed{Type: proto.TypeExecutionPrepare, Err: closed}, turn.SendFailed{Type: proto.TypeExecutionStart, Err: closed},
		turn.SendFailed{Type: proto.TypePromptCancel, Err: closed},
		turn.SubscribeFailed{Stream: turn.StreamPreparation, Err: closed}, turn.SubscribeFailed{Stream: turn.StreamRun, Err: closed},
		turn.SubscribeFailed{Stream: turn.StreamReceipt, Err: closed},
		turn.PersistFailed{Err: closed}, turn.Restarted{},
		turn.InputRequested{Key: "k", Input: proto.TextInput("more")},
		turn.SteerAck{Ack: &proto.PromptSteerAckPayload{InputID: "1", Accepted: true}},
		turn.TimerFired{Timer: turn.TimerInputWritten}, turn.TimerFired{Timer: turn.TimerInputResend},
		turn.SendFailed{Type: proto.TypePromptSteer, Err: closed},
		turn.PermissionCancel{RequestID: "p1"}, turn.Answer{ID: "p1", Key: "k", Answer: json.RawMessage(`{"approved":true}`)},
		turn.DecisionAck{Ack: &proto.InteractionDecisionAckPayload{DeliveryID: "d", Applied: true}},
		turn.DecisionWaitClosed{Err: closed}, turn.TimerFired{Timer: turn.TimerDecisionAck},
		turn.SendFailed{Type: proto.TypePermissionDecision, Err: closed},
		turn.SendFailed{Type: proto.TypePromptForUserChoiceDecision, Err: closed},
		turn.SendFailed{Type: proto.TypeFunctionResult, Err: closed},
		turn.SubscribeFailed{Stream: turn.StreamDecision, Err: closed},
	}
}

// TestKinds keeps the list of kinds, the samples and the table in step.
func TestKinds(t *testing.T) {
	var got []turn.Kind
	for _, ev := range samples() {
		got = append(got, ev.Kind())
	}
	if fmt.Sprint(got) != fmt.Sprint(turn.Kinds()) {
		t.Fatalf("samples %v\nkinds   %v", got, turn.Kinds())
	}
	known := map[turn.Kind]bool{}
	for _, k := range turn.Kinds() {
		known[k] = true
	}
	for _, k := range turn.TableKinds() {
		if !known[k] {
			t.Errorf("the table accepts %s, which Kinds does not list", k)
		}
	}
}

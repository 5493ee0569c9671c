package monitor

import (
	"cmp"
	"encoding/json"
	"fmt"
	"time"

	"github.com/wirecheck/wirecheck/proto"
)

// conn is what one connection has shown so far.
type conn struct {
	m       *Monitor
	n       int
	dev     *device
	frames  int
	opened  time.Time
	heard   bool         // the Runtime has sent a frame
	beat    bool         // the Runtime has sent a heartbeat
	late    bool         // the heartbeat's grace has been reported as missed
	asks    int          // frames Core has sent
	cur     frameRef     // the frame being checked
	quiet   bool         // environment_quiesced accepted: no new work may be admitted (SU-06)
	asked   map[key]*ask // requests awaiting replies, by family and id
	bulk    map[key]*transfer
	exports map[string]*export
	runs    map[string]*run
	status  map[string]*statusLine // preparation statuses by prepare request ID
	cancels map[string]*cancelSent // by Run ID + delivery ID
	steers  map[string]string      // Run ID → the input awaiting its receipt
	// volatile are the inputs (Run ID + input ID) sent without durable_receipt; legacy the Runs
	// cancelled without a delivery ID.
	volatile, legacy map[string]bool
}

// key names a request: the family of its reply and its id.
type key struct{ family, id string }

type frameRef struct {
	from    proto.Peer
	typ, id string
	number  int
}

func newConn(m *Monitor, n int, d *device) *conn {
	return &conn{m: m, n: n, dev: d, opened: m.now(), asked: map[key]*ask{}, bulk: map[key]*transfer{}, exports: map[string]*export{},
		runs: map[string]*run{}, status: map[string]*statusLine{}, cancels: map[string]*cancelSent{}, steers: map[string]string{}}
}

func (c *conn) alarm(rule, format string, args ...any) {
	c.m.raise(Alarm{Conn: c.n, Frame: c.cur.number, From: c.cur.from, Type: c.cur.typ, ID: c.cur.id, Rule: rule,
		Detail: fmt.Sprintf(format, args...)})
}

func (c *conn) frame(from proto.Peer, data []byte) {
	c.frames++
	c.cur = frameRef{from: from, number: c.frames}
	f, err := proto.ParseFrame(data)
	if err != nil {
		env, _ := proto.DecodeEnvelope(data)
		c.cur.typ, c.cur.id = env.Type, env.ID
		c.alarm(shapeRule(env.Type, err), "%v", err)
		if from == proto.Core {
			c.coreInvalid(env)
		}
		return
	}
	c.cur.typ, c.cur.id = f.Type, f.ID
	if f.Spec.From != from {
		c.alarm(shapeRule(f.Type, nil), "%s is sent by %s only", f.Type, f.Spec.From)
		return
	}
	if from == proto.Core {
		c.asks++
		c.coreFrame(f)
		return
	}
	if !c.heard {
		c.heard = true
		// A reply may race the first heartbeat, which goes out as soon as the socket opens; a
		// frame before it that answers nothing cannot.
		if f.Type != proto.TypeHeartbeat && c.asks == 0 {
			c.alarm("CN-23", "the Runtime's first frame on a connection is its heartbeat, sent as soon as the socket opens; this one is %s, and Core has asked nothing", f.Type)
		}
	}
	if f.Type == proto.TypeHeartbeat {
		c.beat = true
	} else {
		c.heartbeatDue()
	}
	c.runtimeFrame(f)
}

// heartbeatDue reports, once, a first heartbeat that has not come within HeartbeatGrace.
func (c *conn) heartbeatDue() {
	if c.beat || c.late {
		return
	}
	if waited := c.m.now().Sub(c.opened); waited > HeartbeatGrace {
		c.late = true
		c.alarm("CN-23", "no heartbeat %v after the socket opened: the first one is sent at once, not on the interval", waited.Round(time.Millisecond))
	}
}

// closing checks what a connection owed by its end.
func (c *conn) closing() {
	c.cur = frameRef{from: proto.Runtime, number: c.frames}
	c.heartbeatDue()
}

// coreFrame records what a Core frame asks and checks what Core may ask.
func (c *conn) coreFrame(f *proto.Frame) {
	switch p := f.Payload.(type) {
	case *proto.RuntimePreparePayload:
		c.transferStep(familyPrepare, f.ID, p.Step, p.Offset, p.Data, beginOf(p))
	case *proto.WorkspaceWritePayload:
		var b *begin
		if p.Step == proto.StepBegin {
			b = &begin{size: p.SizeBytes, sha: p.SHA256, body: true}
		}
		c.transferStep(familyWrite, f.ID, p.Step, p.Offset, p.Data, b)
	case *proto.WorkspaceExportPayload:
		c.exportStep(f.ID, p)
	case *proto.WorkspaceReadPayload:
		c.request(key{proto.TypeWorkspaceReadResult, f.ID}, "WS-08", nil)
	case *proto.EnvironmentSuspendPayload:
		c.suspendRequest(f, p)
	case *proto.ExecutionPreparePayload:
		c.prepare(f.ID)
	case *proto.ExecutionStartPayload:
		c.prepare(f.ID) // its statuses are the prepare request's, or rejected if it named no request
		c.startRun(p.RunID, true)
	case *proto.ExecutionReleasePayload:
		c.prepare(f.ID)
	case *proto.PromptRequestPayload:
		c.startRun(f.RunID(), false)
	case *proto.PromptCancelPayload:
		c.cancel(f.ID, p)
		c.expectAck(f.ID, p.DeliveryID)
	case *proto.PromptSteerPayload:
		c.steer(f.ID, p)
	case *proto.PermissionDecisionPayload:
		c.expectAck(f.ID, p.DeliveryID)
	case *proto.PromptForUserChoiceDecisionPayload:
		c.expectAck(f.ID, p.DeliveryID)
	case *proto.FunctionResultPayload:
		c.expectAck(f.ID, p.DeliveryID)
	}
}

// coreInvalid records a Core frame proto refused, which the Runtime may answer. (A reply to one
// whose id breaks the id rule, which must get none, breaks that rule itself: proto refuses it.)
func (c *conn) coreInvalid(env proto.Envelope) {
	switch env.Type {
	case proto.TypeRuntimePrepare:
		c.invalidStep(familyPrepare, env.ID)
	case proto.TypeWorkspaceWrite:
		c.invalidStep(familyWrite, env.ID)
	case proto.TypeWorkspaceRead:
		c.request(key{proto.TypeWorkspaceReadResult, env.ID}, "WS-07", nil)
	case proto.TypeEnvironmentQuiesce, proto.TypeEnvironmentResume:
		c.request(key{suspendReplyType(env.Type), env.ID}, "SU-03", nil)
	case proto.TypePromptCancel, proto.TypePermissionDecision, proto.TypePromptForUserChoiceDecision, proto.TypeFunctionResult:
		// A refused decision may still be acknowledged (invalid_result, FN-08).
		var p struct {
			DeliveryID string `json:"delivery_id"`
		}
		_ = json.Unmarshal(env.Payload, &p)
		c.expectAck(env.ID, p.DeliveryID)
	case proto.TypeExecutionPrepare, proto.TypeExecutionStart, proto.TypeExecutionRelease:
		c.prepare(env.ID) // refused: rejected at revision 0 (AD-08, AD-31, AD-44)
	case proto.TypePromptRequest:
		// A Run whose ID is known gets error and done even when its request is refused (RS-04/05).
		var p struct {
			RunID string `json:"run_id"`
		}
		_ = json.Unmarshal(env.Payload, &p)
		if id := cmp.Or(env.ID, p.RunID); id != "" {
			c.startRun(id, false)
		}
	}
}

// runtimeFrame checks a Runtime frame against what Core asked on this connection.
func (c *conn) runtimeFrame(f *proto.Frame) {
	switch p := f.Payload.(type) {
	case *proto.RuntimePrepareResultPayload:
		c.transferReply(familyPrepare, f.ID, p.Outcome, p.Offset, p.SizeBytes)
	case *proto.WorkspaceWriteResultPayload:
		c.transferReply(familyWrite, f.ID, p.Outcome, p.Offset, p.SizeBytes)
	case *proto.WorkspaceExportResultPayload:
		c.exportReply(f.ID, p)
	case *proto.WorkspaceReadResultPayload:
		c.reply(key{proto.TypeWorkspaceReadResult, f.ID})
	case *proto.EnvironmentSuspendResultPayload:
		c.suspendReply(f, p)
	case *proto.PreparationStatusPayload:
		c.preparationStatus(f.ID, p)
	case *proto.InteractionDecisionAckPayload:
		c.decisionAck(f.ID, p)
	case *proto.PromptSteerAckPayload:
		c.steerAck(f.ID, p)
	default:
		if runScoped[f.Type] {
			c.runFrame(f)
		}
	}
}

// ask is a request awaiting its replies: how many frames it may still get back, and the rule a
// reply beyond them breaks.
type ask struct {
	pending int
	rule    string // the rule an unasked reply breaks
	value   any    // what the family keeps about the request
}

// request records a frame that asks for one reply. A request whose id is already pending asks for
// none: the rule says a duplicate starts nothing (the reply it would get is unasked).
func (c *conn) request(k key, dupRule string, value any) *ask {
	a := c.asked[k]
	if a != nil && a.pending > 0 {
		a.rule = dupRule
		return a
	}
	a = &ask{pending: 1, value: value, rule: dupRule}
	c.asked[k] = a
	return a
}

// reply takes one reply of family k.family to k.id; it reports false (with an alarm) when
// nothing on this connection asked for it.
func (c *conn) reply(k key) bool {
	a := c.asked[k]
	if a != nil && a.pending > 0 {
		a.pending--
		return true
	}
	switch {
	case a != nil:
		c.alarm(a.rule, "a second reply to a request that asked for one (or a reply to a duplicate, which starts nothing)")
	case c.earlier(k) > 0:
		c.alarm("CN-40", "a reply to a request of connection %d: reconnection replays nothing", c.earlier(k))
	default:
		c.alarm("CN-34", "a reply to a request Core never sent on this connection (each connection has fresh routing)")
	}
	return false
}

// earlier returns the earlier connection of this device that sent the request k answers, or 0.
func (c *conn) earlier(k key) int {
	switch k.family {
	case proto.TypeRuntimePrepareResult:
		if n := c.dev.transfers[k.id]; n != c.n {
			return n
		}
	case proto.TypeWorkspaceWriteResult:
		if n := c.dev.writes[k.id]; n != c.n {
			return n
		}
	}
	return 0
}

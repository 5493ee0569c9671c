package monitor

import (
	"github.com/wirecheck/wirecheck/proto"
)

// runScoped are the Runtime frames whose id is a Run ID and which belong to that Run's stream.
var runScoped = map[string]bool{
	proto.TypeDelta: true, proto.TypeThinking: true, proto.TypeOutputMessage: true, proto.TypeToolCall: true,
	proto.TypeUsage: true, proto.TypeError: true, proto.TypeDone: true, proto.TypePermissionRequest: true,
	proto.TypePromptForUserChoice: true, proto.TypeFunctionCall: true, proto.TypeSubagentIdentity: true,
	proto.TypeSubagentLifecycle: true, proto.TypeSubagentTurn: true, proto.TypeSubagentItem: true,
	proto.TypeSubagentCoordination: true,
}

// run is a Run Core started on this connection.
type run struct {
	prepared bool // started by execution_start (else by prompt_request)
	started  bool // its stream began: a started status or a first frame
	done     bool
}

func (c *conn) startRun(id string, prepared bool) {
	if r := c.runs[id]; r == nil || r.done {
		c.runs[id] = &run{prepared: prepared}
	}
}

// runFrame holds a stream frame to its Run: started here, and not yet done (RS-07).
func (c *conn) runFrame(f *proto.Frame) {
	r := c.runs[f.ID]
	switch {
	case r == nil:
		c.alarm("RS-07", "a %s for a Run Core did not start on this connection (a connection has fresh routing, CN-34)", f.Type)
	case r.done:
		c.alarm("RS-07", "a %s after the Run's done, which is its one terminal frame", f.Type)
	case f.Type == proto.TypeDone:
		r.done = true
	}
	if r != nil {
		r.started = true
	}
}

// cancelSent is a prompt_cancel that asked for a receipt.
type cancelSent struct{ prepared, active bool }

func (c *conn) cancel(runID string, p *proto.PromptCancelPayload) {
	if p.DeliveryID == "" {
		return // no receipt asked (CA-02)
	}
	r := c.runs[runID]
	// A Run whose start a cancellation aborts never streams and ends failed start_cancelled (AD-42):
	// only a Run that began streaming owes a done before its receipt.
	c.cancels[runID+"\x00"+p.DeliveryID] = &cancelSent{prepared: r != nil && r.prepared, active: r != nil && r.started && !r.done}
}

// ackFamily keys the acknowledgements Core awaits by delivery ID.
const ackFamily = proto.TypeInteractionDecisionAck

// expectAck records a frame that asks for one interaction_decision_ack: a cancellation with a
// delivery ID, a decision, a function result. Each frame gets its own, a replay included (IA-06).
func (c *conn) expectAck(id, delivery string) {
	if delivery == "" {
		if c.legacy == nil {
			c.legacy = map[string]bool{}
		}
		c.legacy[id] = true // a cancellation without delivery_id gets no receipt (CA-02)
		return
	}
	k := key{ackFamily, delivery}
	if a := c.asked[k]; a != nil && a.pending > 0 {
		a.pending++
		return
	}
	c.asked[k] = &ask{pending: 1, rule: "CA-13"}
}

// decisionAck holds an acknowledgement to the delivery it answers, and a cancellation receipt to
// what it proves: for a prepared Run that was active, applied:true only after native settlement,
// which its done reports first (CA-04, CA-12).
func (c *conn) decisionAck(id string, p *proto.InteractionDecisionAckPayload) {
	if a := c.asked[key{ackFamily, p.DeliveryID}]; a == nil {
		if c.legacy[id] {
			c.alarm("CA-02", "an acknowledgement for Run %q, whose cancellation carried no delivery_id and so asks for no receipt", id)
			return
		}
	}
	if !c.reply(key{ackFamily, p.DeliveryID}) {
		return
	}
	cs := c.cancels[id+"\x00"+p.DeliveryID]
	if cs == nil || !p.Applied || !cs.prepared || !cs.active {
		return
	}
	if r := c.runs[id]; r != nil && !r.done {
		c.alarm("CA-04", "applied:true before the Run's done: a cancellation receipt waits for native settlement, and done comes first")
	}
}

func (c *conn) steer(runID string, p *proto.PromptSteerPayload) {
	k := runID + "\x00" + p.InputID
	if n, ok := c.dev.inputs[k]; ok && n != c.n {
		c.alarm("CN-40", "input %q was delivered on connection %d: reconnection replays no input", p.InputID, n)
	}
	c.dev.inputs[k] = c.n
	if pending := c.steers[runID]; pending != "" {
		c.alarm("IN-20", "input %q while input %q awaits its receipt: Core delivers one input at a time per Run", p.InputID, pending)
	}
	c.steers[runID] = p.InputID
	if !p.DurableReceipt {
		if c.volatile == nil {
			c.volatile = map[string]bool{}
		}
		c.volatile[k] = true
	}
}

func (c *conn) steerAck(runID string, p *proto.PromptSteerAckPayload) {
	if c.steers[runID] == p.InputID {
		delete(c.steers, runID)
	}
	if p.Written && c.volatile[runID+"\x00"+p.InputID] {
		c.alarm("IN-03", "written:true for input %q, sent without durable_receipt: only a durable receipt reports the native write", p.InputID)
	}
}

// statusLine is what a preparation request's statuses have said so far.
type statusLine struct {
	quiesced bool // the request was sent after the Environment quiesced
	seen     bool
	expires  int64 // the expiry fixed at grant, once a status carried it
	handle   string
	revision uint64
	state    string
}

var stateRank = map[string]int{proto.StatePreparing: 0, proto.StateReady: 1, proto.StateStarting: 2, proto.StateStarted: 3}

func terminalState(s string) bool {
	return s == proto.StateStarted || s == proto.StateReleased || s == proto.StateExpired || s == proto.StateFailed
}

func (c *conn) prepare(id string) {
	if c.status[id] == nil {
		c.status[id] = &statusLine{quiesced: c.quiet}
	}
}

// preparationStatus holds a status to its request and to the line of statuses before it: a
// revision never goes back, names one state, and nothing follows a terminal state (AD-05).
func (c *conn) preparationStatus(id string, p *proto.PreparationStatusPayload) {
	l := c.status[id]
	if l == nil {
		c.alarm("CN-34", "a status for a preparation request Core never sent on this connection")
		return
	}
	if p.State == proto.StateRejected {
		return // answers one control operation; its revision is not the line's (AD-07)
	}
	if p.State == proto.StateExpired && p.ExpiresAt == 0 {
		c.alarm("AD-04", "expired without expires_at: an expiry names the time it was due")
	}
	if l.quiesced && !l.seen && (p.State == proto.StatePreparing || p.State == proto.StateReady) {
		c.alarm("SU-06", "%s for a preparation requested after the Environment quiesced: no work is admitted once quiescence is accepted", p.State)
	}
	if l.seen && p.Handle != l.handle && terminalState(l.state) {
		l.seen, l.expires = false, 0 // a retired request ID may allocate a fresh handle, which starts a new line (AD-52)
	}
	if p.State == proto.StateStarted && p.RunID != "" {
		if r := c.runs[p.RunID]; r != nil {
			r.started = true
		}
	}
	if l.seen {
		_, ranked := stateRank[p.State]
		switch {
		case p.Revision < l.revision:
			c.alarm("AD-05", "revision %d (%s) after revision %d (%s): a revision never goes back", p.Revision, p.State, l.revision, l.state)
			return
		case p.Revision == l.revision && p.State != l.state:
			c.alarm("AD-05", "revision %d is %s, and was %s: a revision names one state", p.Revision, p.State, l.state)
			return
		case p.Revision > l.revision && l.state == proto.StateFailed && p.State == proto.StateFailed:
			// a failed close follows a failure at the next revision (AD-27)
		case p.Revision > l.revision && terminalState(l.state):
			c.alarm("AD-05", "revision %d (%s) after the terminal %s", p.Revision, p.State, l.state)
			return
		case p.Revision > l.revision && ranked && stateRank[p.State] < stateRank[l.state]:
			c.alarm("AD-05", "%s after %s: a preparation moves preparing → ready → starting → started", p.State, l.state)
			return
		}
	}
	if p.ExpiresAt != 0 {
		if l.expires != 0 && p.ExpiresAt != l.expires {
			c.alarm("AD-51", "expires_at %d, and was %d: the expiry is fixed at grant and nothing extends it", p.ExpiresAt, l.expires)
		}
		l.expires = p.ExpiresAt
	}
	l.seen, l.handle, l.revision, l.state = true, p.Handle, p.Revision, p.State
}

func suspendReplyType(requestType string) string {
	if requestType == proto.TypeEnvironmentQuiesce {
		return proto.TypeEnvironmentQuiesced
	}
	return proto.TypeEnvironmentResumed
}

func (c *conn) suspendRequest(f *proto.Frame, p *proto.EnvironmentSuspendPayload) {
	outstanding := 0
	for k, a := range c.asked {
		if (k.family == proto.TypeEnvironmentQuiesced || k.family == proto.TypeEnvironmentResumed) && a.pending > 0 {
			outstanding++
		}
	}
	if outstanding >= 2 {
		c.alarm("SU-09", "a third suspension request while %d await their replies", outstanding)
	}
	c.request(key{suspendReplyType(f.Type), f.ID}, "SU-03", p)
}

// suspendReply holds a reply to the request it echoes (SU-03); an accepted quiescence parks the
// connection (SU-06).
func (c *conn) suspendReply(f *proto.Frame, p *proto.EnvironmentSuspendResultPayload) {
	k := key{f.Type, f.ID}
	a := c.asked[k]
	if !c.reply(k) {
		return
	}
	if req, ok := a.value.(*proto.EnvironmentSuspendPayload); ok && (p.EnvironmentID != req.EnvironmentID || p.SuspendID != req.SuspendID) {
		c.alarm("SU-03", "echoes environment %q and suspend_id %q; the request named %q and %q", p.EnvironmentID, p.SuspendID, req.EnvironmentID, req.SuspendID)
	}
	if f.Type == proto.TypeEnvironmentQuiesced && p.Accepted {
		c.quiet = true
	}
}

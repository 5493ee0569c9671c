package turn

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// The text forms below are stable: the data-driven tests compare them, and logs print them.

func (CheckDevice) String() string  { return "check-device" }
func (NewPrepareID) String() string { return "new-prepare-id" }
func (e Subscribe) String() string  { return "subscribe " + string(e.Stream) + " " + e.ID }
func (e Close) String() string      { return "close " + string(e.Stream) }
func (e Arm) String() string        { return fmt.Sprintf("arm %s %s", e.Timer, e.After) }
func (e Disarm) String() string     { return "disarm " + e.Timer.String() }

func (e Commit) String() string {
	head := "commit " + e.From
	if e.Moves() {
		head += "→" + e.Record.Phase
	}
	if fields := e.Record.String(); fields != "" {
		head += " " + fields
	}
	return head
}

func (e Journal) String() string {
	out := "journal " + e.Event.Kind
	if e.Event.Type != "" {
		out += " " + e.Event.Type
	}
	if e.Event.Note != "" {
		out += ": " + e.Event.Note
	}
	return out
}

func (e Send) String() string {
	out := "send " + e.Envelope.Type + " " + e.Envelope.ID
	if len(e.Envelope.Payload) > 0 {
		out += " " + string(e.Envelope.Payload)
	}
	if e.BestEffort {
		out += " (best effort)"
	}
	if e.Reported {
		out += " (failure reported)"
	}
	return out
}

func (e Finish) String() string {
	out := "finish " + e.From + "→" + store.PhaseDone + " " + strings.Join(OutcomeFields(e.Outcome), " ")
	if e.Record != nil {
		out += " " + InputsString(e.Record.Inputs)
		if len(e.Record.Interactions) > 0 {
			out += " " + InteractionsString(e.Record.Interactions)
		}
	}
	return out
}

// InteractionsString lists the interactions as (id:state[:code][@delivery] ...).
func InteractionsString(ins []store.Interaction) string {
	var f []string
	for _, in := range ins {
		s := in.ID + ":" + in.State
		if in.Code != "" {
			s += ":" + in.Code
		}
		if in.DeliveryID != "" {
			s += "@" + in.DeliveryID
		}
		f = append(f, s)
	}
	return "interactions=(" + strings.Join(f, " ") + ")"
}

// InputsString lists the inputs as (id:state[:code][/sends] ...).
func InputsString(ins []store.Input) string {
	var f []string
	for _, in := range ins {
		s := in.ID + ":" + in.State
		if in.Code != "" {
			s += ":" + in.Code
		}
		if in.Sends > 1 {
			s += fmt.Sprintf("/%d", in.Sends)
		}
		f = append(f, s)
	}
	return "inputs=(" + strings.Join(f, " ") + ")"
}

// OutcomeFields lists an outcome's set fields as key=value, status first.
func OutcomeFields(o *store.Outcome) []string {
	f := []string{"status=" + o.Status}
	add := func(key string, v any) { f = append(f, key+"="+text(v)) }
	if o.Reason != "" {
		f = append(f, "reason="+o.Reason)
	}
	if o.EffectUnknown {
		f = append(f, "effect-unknown")
	}
	if o.Error != "" {
		add("error", o.Error)
	}
	if o.PreparationErrorCode != "" {
		f = append(f, "preparation-code="+o.PreparationErrorCode)
	}
	if o.EngineErrorCode != "" || o.EngineHTTPStatus != 0 {
		f = append(f, fmt.Sprintf("engine=%s/%d", o.EngineErrorCode, o.EngineHTTPStatus))
	}
	if len(o.Denied) > 0 {
		f = append(f, "denied=("+strings.Join(o.Denied, ",")+")")
	}
	if o.Content != "" {
		add("content", o.Content)
	}
	if o.Transcript != "" {
		add("transcript", o.Transcript)
	}
	if o.Usage != nil {
		add("usage", o.Usage)
	}
	if len(o.Metadata) > 0 {
		add("metadata", o.Metadata)
	}
	if o.SourceCompletedAtMS != 0 {
		f = append(f, fmt.Sprintf("source-completed-at-ms=%d", o.SourceCompletedAtMS))
	}
	if o.DoneObserved {
		f = append(f, "done-observed")
	}
	if o.CancelReceipt != nil {
		add("receipt", o.CancelReceipt)
	}
	return f
}

// text quotes a string and writes anything else as JSON (maps with sorted keys).
func text(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(raw)
}

// String lists the record's set fields (the phase aside).
func (r Record) String() string {
	var f []string
	if r.PrepareID != "" {
		f = append(f, "prepare="+r.PrepareID)
	}
	if r.Handle != "" || r.ExecutorID != "" {
		f = append(f, "handle="+r.Handle, "executor="+r.ExecutorID)
	}
	if r.Claims != 0 {
		f = append(f, fmt.Sprintf("claims=%d", r.Claims))
	}
	if r.Recovered {
		f = append(f, "recovered")
	}
	if r.CancelRequested {
		f = append(f, "cancel-requested")
	}
	if r.Admitted != nil {
		f = append(f, "admitted=("+strings.Join(supported(r.Admitted), ",")+")")
	}
	if len(r.Inputs) > 0 {
		f = append(f, InputsString(r.Inputs), fmt.Sprintf("cursor=%d", r.InputCursor))
	}
	if len(r.Interactions) > 0 {
		f = append(f, InteractionsString(r.Interactions))
	}
	if len(r.Subagents) > 0 {
		f = append(f, SubagentsString(r.Subagents))
	}
	return strings.Join(f, " ")
}

// SubagentsString lists the recorded sub-agent frames by type, without the subagent_ prefix.
func SubagentsString(evs []store.SubagentEvent) string {
	f := make([]string, len(evs))
	for i, e := range evs {
		f[i] = strings.TrimPrefix(e.Type, "subagent_")
	}
	return "subagents=(" + strings.Join(f, " ") + ")"
}

func supported(c *proto.AgentKindCapabilities) []string {
	var out []string
	for _, name := range proto.CapabilityNames() {
		if v, ok := c.Get(name); ok && v.Supported() {
			out = append(out, name)
		}
	}
	return out
}

// String is the state on one line, then what was observed of the Run, if anything.
func (s State) String() string {
	f := []string{s.Phase}
	if r := s.Record.String(); r != "" {
		f = append(f, r)
	}
	if s.LearnedHandle != "" || s.LearnedExecutor != "" {
		f = append(f, "learned="+s.LearnedHandle+"/"+s.LearnedExecutor)
	}
	if s.Timers != 0 {
		f = append(f, "timers=("+s.Timers.String()+")")
	}
	if s.Spec != nil && s.Backoff != s.Spec.RetryBackoff {
		f = append(f, "next-backoff="+s.Backoff.String())
	}
	if s.Asked != AskedNothing {
		f = append(f, "asked="+string(s.Asked))
	}
	out := strings.Join(f, " ")
	if seen := s.Seen.String(); seen != "" {
		out += "\nseen: " + seen
	}
	return out
}

func (o Observation) String() string {
	var f []string
	if o.Deltas.Len() > 0 {
		f = append(f, "deltas="+text(o.Deltas.String()))
	}
	if o.LastMessage != "" {
		f = append(f, "message="+text(o.LastMessage))
	}
	if o.Usage != nil {
		f = append(f, "usage="+text(o.Usage))
	}
	if o.Error != nil {
		f = append(f, "error="+text(o.Error))
	}
	if o.Done != nil {
		f = append(f, "done="+text(o.Done))
	}
	return strings.Join(f, " ")
}

package daemon

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/interact"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// The function mutants (FN) that need more than a changed condition. Every one acts only once
// mutation.On says so, a constant false outside the wirecheck_mutants build; each touches
// function tools, calls and results only, never the decision families.

// members is a JSON object as its members, numbers kept as written.
type members = map[string]any

func decodeMembers(raw json.RawMessage) (members, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m members
	return m, d.Decode(&m) == nil && m != nil
}

// redecoded is env with its payload's members m, decoded strictly as T.
func redecoded[T any](env proto.Envelope, m members) (*T, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	env.Payload = raw
	return proto.Decode[T](env)
}

// toolFixes repair the one function-tool rule of a configuration (FN-01, FN-02); each reports
// whether the configuration broke it.
var toolFixes = []struct {
	point mutation.Point
	fix   func(cfg members, tools []members) bool
}{
	{mutation.FNToolNameUnchecked, func(_ members, tools []members) bool {
		fixed := false
		for i, t := range tools {
			if name, ok := t["name"].(string); !ok || strings.TrimSpace(name) == "" {
				t["name"], fixed = "unnamed_tool_"+strconv.Itoa(i), true
			}
		}
		return fixed
	}},
	{mutation.FNToolDescriptionOptional, func(_ members, tools []members) bool {
		fixed := false
		for _, t := range tools {
			if _, ok := t["description"]; !ok {
				t["description"], fixed = "", true
			}
		}
		return fixed
	}},
	{mutation.FNToolParametersUnchecked, func(_ members, tools []members) bool {
		fixed := false
		for _, t := range tools {
			if _, ok := t["parameters"].(map[string]any); !ok {
				t["parameters"], fixed = members{}, true
			}
		}
		return fixed
	}},
	{mutation.FNDeferLoadingLoose, func(_ members, tools []members) bool {
		fixed := false
		for _, t := range tools {
			v, ok := t["defer_loading"]
			if _, isBool := v.(bool); !ok || isBool {
				continue
			}
			t["defer_loading"], fixed = v == "true" || v == json.Number("1"), true
		}
		return fixed
	}},
	{mutation.FNToolSearchAloneIgnored, func(cfg members, tools []members) bool {
		if cfg["tool_search"] != true || deferredTool(tools) {
			return false
		}
		delete(cfg, "tool_search")
		return true
	}},
	{mutation.FNDeferredImpliesSearch, func(cfg members, tools []members) bool {
		if cfg["tool_search"] == true || !deferredTool(tools) {
			return false
		}
		cfg["tool_search"] = true
		return true
	}},
}

func deferredTool(tools []members) bool {
	for _, t := range tools {
		if t["defer_loading"] == true {
			return true
		}
	}
	return false
}

// laxFunctionTools is, for an execution_prepare that failed decoding, the payload a function-tool
// mutant admits: one whose configuration breaks the mutant's rule and no other.
func laxFunctionTools(env proto.Envelope, p *proto.ExecutionPreparePayload, err error) (*proto.ExecutionPreparePayload, error) {
	if err == nil {
		return p, err
	}
	for _, f := range toolFixes {
		m, ok := decodeMembers(env.Payload)
		if !ok {
			return p, err
		}
		cfg, _ := m["configuration"].(map[string]any)
		list, _ := cfg["function_tools"].([]any)
		if cfg == nil || len(list) == 0 {
			return p, err
		}
		tools := make([]members, 0, len(list))
		for _, t := range list {
			if tool, ok := t.(map[string]any); ok {
				tools = append(tools, tool)
			}
		}
		if !f.fix(cfg, tools) {
			continue
		}
		if fixed, ferr := redecoded[proto.ExecutionPreparePayload](env, m); ferr == nil && mutation.On(f.point) {
			return fixed, nil
		}
	}
	return p, err
}

// ungatedTools is caps as the capability-gate mutants read it: on execution_prepare
// (FunctionToolsWithoutCapability, ToolSearchWithoutCapability, FN-03.1/FN-04.1) or on
// prompt_request (FN-03.2/FN-04.2), the missing function_tools or tool_search declaration is
// taken as declared.
func ungatedTools(cfg *proto.PromptRequestPayload, caps proto.AgentKindCapabilities, prompt bool) proto.AgentKindCapabilities {
	tools, search := mutation.FunctionToolsWithoutCapability, mutation.ToolSearchWithoutCapability
	if prompt {
		tools, search = mutation.FNToolsPromptUngated, mutation.FNToolSearchPromptUngated
	}
	if len(cfg.FunctionTools) > 0 && !caps.FunctionTools.Supported() && mutation.On(tools) {
		caps.FunctionTools = proto.Supported
	}
	if cfg.ToolSearch && !caps.ToolSearch.Supported() && mutation.On(search) {
		caps.ToolSearch = proto.Supported
	}
	return caps
}

// mutateFunctionCall bends a function_call on its way to the wire: the envelope to send instead,
// if a mutant changes it.
func mutateFunctionCall(runID string, p *proto.FunctionCallPayload) (proto.Envelope, bool) {
	switch {
	case mutation.On(mutation.FNCallUnderCallID):
		return proto.MustEnvelope(proto.TypeFunctionCall, p.CallID, p), true
	case mutation.On(mutation.FNCallWithoutCallID):
		c := *p
		c.CallID = ""
		return proto.MustEnvelope(proto.TypeFunctionCall, runID, &c), true
	case mutation.On(mutation.FNCallWithoutName):
		c := *p
		c.Name = ""
		return proto.MustEnvelope(proto.TypeFunctionCall, runID, &c), true
	case mutation.On(mutation.FNCallWithoutArguments):
		env := proto.MustEnvelope(proto.TypeFunctionCall, runID, p)
		if m, ok := decodeMembers(env.Payload); ok {
			delete(m, "arguments")
			env.Payload, _ = json.Marshal(m)
		}
		return env, true
	}
	return proto.Envelope{}, false
}

// resultFixes repair the one rule of a function_result's content or success (FN-06.4, FN-08).
var resultFixes = []struct {
	point mutation.Point
	fix   func(m members) bool
}{
	{mutation.FNResultSuccessOptional, func(m members) bool {
		if _, ok := m["success"]; ok {
			return false
		}
		m["success"] = false
		return true
	}},
	{mutation.FNNullContentApplied, func(m members) bool {
		if v, ok := m["content"]; !ok || v != nil {
			return false
		}
		m["content"] = []any{}
		return true
	}},
	{mutation.FNAbsentContentApplied, func(m members) bool {
		if _, ok := m["content"]; ok {
			return false
		}
		m["content"] = []any{}
		return true
	}},
	{mutation.FNBadPartSkipped, func(m members) bool {
		parts, ok := m["content"].([]any)
		if !ok {
			return false
		}
		kept := []any{}
		for _, part := range parts {
			if validPart(part) {
				kept = append(kept, part)
			}
		}
		m["content"] = kept
		return len(kept) < len(parts)
	}},
}

// validPart: a content part decodes as an InputContent (exactly the member its type names) and is
// a valid one.
func validPart(part any) bool {
	raw, err := json.Marshal(part)
	var c proto.InputContent
	return err == nil && json.Unmarshal(raw, &c) == nil && c.Validate() == nil
}

// laxFunctionResult is, for a function_result that failed decoding, the payload a result mutant
// applies: one that breaks the mutant's rule and no other.
func laxFunctionResult(env proto.Envelope, p *proto.FunctionResultPayload, err error) (*proto.FunctionResultPayload, error) {
	if err == nil {
		return p, err
	}
	for _, f := range resultFixes {
		m, ok := decodeMembers(env.Payload)
		if !ok || !f.fix(m) {
			continue
		}
		if fixed, ferr := redecoded[proto.FunctionResultPayload](env, m); ferr == nil && mutation.On(f.point) {
			return fixed, nil
		}
	}
	return p, err
}

// refusedResultMutants handles a function_result that failed decoding under the FN-07 and FN-08.5
// mutants; true when it did all there is to do.
func (r *router) refusedResultMutants(env proto.Envelope) bool {
	delivery, call := rawString(env.Payload, "delivery_id"), rawString(env.Payload, "call_id")
	ack := &proto.InteractionDecisionAckPayload{DeliveryID: delivery, ErrorCode: proto.CodeInvalidResult, Error: "invalid function_result"}
	switch {
	case delivery == "" && call != "" && env.ID != "":
		if mutation.On(mutation.FNUnaddressedResultAcked) {
			r.ack(env.ID, ack)
			return true
		}
		if mutation.On(mutation.FNDroppedResultWithdrawsCall) {
			r.withdrawCall(env.ID, call)
		}
	case call == "" && delivery != "" && env.ID != "":
		if mutation.On(mutation.FNResultWithoutCallIDAcked) {
			r.ack(env.ID, ack)
			return true
		}
	case env.ID == "" && delivery != "" && call != "":
		if mutation.On(mutation.FNResultWithoutRunIDAcked) {
			r.ack("", ack)
			return true
		}
	case delivery != "" && call != "" && env.ID != "":
		if mutation.On(mutation.FNInvalidResultWithdrawsCall) {
			r.withdrawCall(env.ID, call)
		}
	}
	return false
}

func (r *router) withdrawCall(runID, callID string) {
	r.iaMu.Lock()
	defer r.iaMu.Unlock()
	r.ia.m.Withdrawn(interact.FunctionKey(runID, callID))
}

// unknownCallRefused: under FN-12.1's mutant, a result naming a call its active Run (of a kind
// with function_tools) never emitted is answered contract_violation.
func (r *router) unknownCallRefused(env proto.Envelope, p *proto.FunctionResultPayload) bool {
	r.mu.Lock()
	rn := r.runs[env.ID]
	r.mu.Unlock()
	if rn == nil || !rn.exec.caps.FunctionTools.Supported() {
		return false
	}
	k := interact.FunctionKey(env.ID, p.CallID)
	r.iaMu.Lock()
	_, applied := r.ia.m.Fingerprint(k)
	emitted := r.ia.m.Pending(k) || applied
	r.iaMu.Unlock()
	if emitted || !mutation.On(mutation.FNUnknownCallContractViolation) {
		return false
	}
	r.ack(env.ID, &proto.InteractionDecisionAckPayload{DeliveryID: p.DeliveryID, ErrorCode: proto.CodeContractViolation, Error: "the Run emitted no such call"})
	return true
}

// resultRun is the Run a result is for: its envelope id, or under FN-06.1's mutant the Run that
// emitted a pending call of that call_id.
func (r *router) resultRun(envID, callID string) string {
	r.iaMu.Lock()
	defer r.iaMu.Unlock()
	if r.ia.m.Pending(interact.FunctionKey(envID, callID)) {
		return envID
	}
	for k, rn := range r.ia.runs {
		if k.Family == harness.Function && strings.HasSuffix(k.ID, "\x00"+callID) && r.ia.m.Pending(k) &&
			mutation.On(mutation.FNResultRoutedByCallID) {
			return rn.id
		}
	}
	return envID
}

// resultAckID is the envelope id a result's ack goes under.
func resultAckID(envID string, p *proto.FunctionResultPayload) string {
	if mutation.On(mutation.FNAckUnderCallID) {
		return p.CallID
	}
	return envID
}

// keptCalls are, under FN-12.2's mutant, the pending calls of a finished Run that stay pending
// (under iaMu).
func (r *router) keptCalls(rn *run) map[interact.Key]bool {
	var kept map[interact.Key]bool
	for k, owner := range r.ia.runs {
		if owner == rn && k.Family == harness.Function && r.ia.m.Pending(k) && mutation.On(mutation.FNFinishedRunCallsKept) {
			if kept == nil {
				kept = map[interact.Key]bool{}
			}
			kept[k] = true
		}
	}
	return kept
}

// mutateFunctionAnswer: under FN-13.1's mutant an identical re-submission of an applied result
// is not looked up in the replay memory.
func mutateFunctionAnswer(m *interact.Machine, a interact.Answer) {
	if a.Key.Family != harness.Function {
		return
	}
	if prior, ok := m.Fingerprint(a.Key); ok && prior == a.Fingerprint && mutation.On(mutation.FNReplayNotPending) {
		m.Forget(a.Key)
	}
}

// functionVerdict bends the machine's verdict on a re-submitted function result (FN-13), under
// iaMu.
func (r *router) functionVerdict(rn *run, a interact.Answer, payload any, v interact.Verdict) interact.Verdict {
	if a.Key.Family != harness.Function {
		return v
	}
	switch {
	case v.Ack.Applied && !v.Apply: // an identical re-submission
		if rn != nil && mutation.On(mutation.FNReplayReapplied) {
			_ = r.resolveNative(rn, a.Key, payload)
		}
	case v.Ack.ErrorCode == proto.CodeDecisionConflict:
		if rn != nil && mutation.On(mutation.FNConflictReachesNative) {
			_ = r.resolveNative(rn, a.Key, payload)
		}
		if mutation.On(mutation.FNConflictNotPending) {
			v.Ack.ErrorCode = proto.CodeNotPending
		}
	}
	return v
}

// mutateFunctionOutcome bends how the native side took a function result.
func mutateFunctionOutcome(k interact.Key, o interact.Outcome) interact.Outcome {
	if k.Family != harness.Function {
		return o
	}
	switch {
	case o == interact.NotReady && mutation.On(mutation.FNNotReadyAsRuntimeError):
		return interact.Failed
	case o == interact.Unimplemented && mutation.On(mutation.FNUnimplementedAsRuntimeError):
		return interact.Failed
	}
	return o
}

// mutateFunctionSettled bends what a settled function result leaves pending, and its ack.
func mutateFunctionSettled(m *interact.Machine, a interact.Answer, o interact.Outcome, receipt proto.InteractionDecisionAckPayload) proto.InteractionDecisionAckPayload {
	if a.Key.Family != harness.Function {
		return receipt
	}
	switch {
	case o == interact.NotReady && mutation.On(mutation.FNNotReadyWithdrawsCall):
		m.Withdrawn(a.Key)
	case (o == interact.Unimplemented || o == interact.Failed) && mutation.On(mutation.FNFailedAttemptWithdrawsCall):
		m.Withdrawn(a.Key)
	}
	if o == interact.Failed && mutation.On(mutation.FNNativeFailureNotPending) {
		receipt.ErrorCode = proto.CodeNotPending
	}
	return receipt
}

package contract

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
)

// waiting is one interaction the Turn emitted and waits on.
type waiting struct {
	native   []string
	attempts int
	answered chan struct{} // closed once an answer is applied
}

type interactionKey struct {
	family harness.Family
	id     string
}

// errNativeFailure is the scripted native failure (native: fails).
var errNativeFailure = errors.New("contract: scripted native failure to apply the answer")

// Resolve applies Core's answer as the step's `native` list scripts it (docs/contract-harness.md
// §3.3). An applied answer is recorded for done's metadata and ends the wait.
func (t *Turn) Resolve(family harness.Family, id string, answer any) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n, emitted := t.delivered[interactionKey{family, id}]; emitted {
		t.delivered[interactionKey{family, id}] = n + 1 // handed to the native side, whatever it says
	}
	w := t.pending[interactionKey{family, id}]
	if w == nil {
		return harness.ErrInteractionUnknown
	}
	outcome := NativeApplied
	if len(w.native) > 0 {
		outcome = w.native[min(w.attempts, len(w.native)-1)]
	}
	w.attempts++
	switch outcome {
	case NativeNotReady:
		return harness.ErrInteractionNotReady
	case NativeFails:
		return errNativeFailure
	case NativeUnimplemented:
		return harness.ErrInteractionUnimplemented
	case NativeUnknown:
		return harness.ErrInteractionUnknown
	}
	delete(t.pending, interactionKey{family, id})
	t.outcomes[outcomeKey(family, id)] = echo(answer)
	close(w.answered)
	return nil
}

// outcomeKey is the done metadata key that reports an interaction's outcome.
func outcomeKey(family harness.Family, id string) string {
	return "contract." + string(family) + "." + id
}

// deliveryPrefix starts the done metadata keys of turn.report_deliveries: a family (or "input")
// and an ID follow.
const deliveryPrefix = "contract.deliveries."

// deliveries is the done metadata of turn.report_deliveries (docs/contract-harness.md §3.4): how
// many answers reached the native side for each interaction the Turn emitted ("0" for none), and
// how many native writes each input_id the Runtime handed to the Turn had. t.mu is held.
func (t *Turn) deliveries() map[string]string {
	md := make(map[string]string, len(t.delivered)+len(t.inputs))
	for k, n := range t.delivered {
		md[deliveryPrefix+string(k.family)+"."+k.id] = strconv.Itoa(n)
	}
	for id, n := range t.inputs {
		md[deliveryPrefix+"input."+id] = strconv.Itoa(n)
	}
	return md
}

// echo is the applied answer as compact JSON without delivery_id (the attempt, not the content),
// object members sorted by name at every depth: one spelling per content.
func echo(answer any) string {
	raw, err := json.Marshal(answer)
	if err != nil {
		return "unencodable"
	}
	var members map[string]any
	if json.Unmarshal(raw, &members) != nil {
		return string(raw)
	}
	delete(members, "delivery_id")
	out, _ := json.Marshal(members)
	return string(out)
}

// interact emits one interaction step and waits for its answer; it reports whether cancellation
// interrupted the wait.
func (t *Turn) interact(step EventStep) bool {
	var (
		ev       harness.Event
		key      interactionKey
		native   []string
		withdraw *int
	)
	switch {
	case step.Permission != nil:
		ev = harness.Event{Type: proto.TypePermissionRequest, Payload: &step.Permission.Request}
		key, native, withdraw = interactionKey{harness.Permission, step.Permission.Request.RequestID}, step.Permission.Native, step.Permission.WithdrawMS
	case step.UserChoice != nil:
		ev = harness.Event{Type: proto.TypePromptForUserChoice, Payload: &step.UserChoice.Prompt}
		key, native = interactionKey{harness.UserChoice, step.UserChoice.Prompt.AskID}, step.UserChoice.Native
	default:
		ev = harness.Event{Type: proto.TypeFunctionCall, Payload: &step.FunctionCall.Call}
		key, native = interactionKey{harness.Function, step.FunctionCall.Call.CallID}, step.FunctionCall.Native
	}
	w := &waiting{native: native, answered: make(chan struct{})}
	// Pending before it is emitted: an answer may follow the frame at once.
	t.mu.Lock()
	t.pending[key] = w
	if _, again := t.delivered[key]; !again {
		t.delivered[key] = 0
	}
	t.mu.Unlock()
	// The withdrawal timer is armed before the request goes out: an advance that follows the
	// frame must find it. Then the Turn waits for Core, not for the clock.
	var expired <-chan time.Time
	if withdraw != nil {
		timer := t.e.h.Clock.NewTimer(time.Duration(*withdraw) * time.Millisecond)
		defer timer.Stop()
		expired = timer.C()
	}
	t.running.Release()
	select {
	case t.events <- ev:
	case <-t.cancel:
		return true
	}
	select {
	case <-w.answered:
		return false
	case <-t.cancel:
		return true
	case <-expired:
	}
	t.mu.Lock()
	_, still := t.pending[key]
	delete(t.pending, key)
	if still {
		t.outcomes[outcomeKey(key.family, key.id)] = "withdrawn"
	}
	t.mu.Unlock()
	if !still {
		return false // the answer won the race: it was applied
	}
	select {
	case t.events <- harness.Event{Type: proto.TypePermissionCancel, Payload: harness.Withdrawal{RequestID: key.id}}:
		return false
	case <-t.cancel:
		return true
	}
}

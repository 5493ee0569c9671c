package input

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// Phase is where one recorded input stands.
type Phase string

const (
	Writing Phase = "writing" // the native write is in progress
	Written Phase = "written" // written, its native consumption not yet confirmed
	Final   Phase = "final"   // its last receipt is stored and returned to every identical repeat
)

// Record is one distinct input the Run took (IN-08 counts these).
type Record struct {
	ID      string
	Hash    string // content and durable_receipt: an identical repeat has the same hash (IN-07)
	Durable bool
	Phase   Phase
	Receipt *proto.PromptSteerAckPayload // the stored receipt once Final (IN-16)
}

// Run is the input state of one Run. The zero value is a Run still starting.
type Run struct {
	Records map[string]*Record
	Order   []string // record creation order
	Active  string   // the input that awaits its final receipt ("" none): IN-10, IN-11
	Ending  bool     // the Turn settled; done waits for Active (IN-19)
	Ended   bool     // done is out (or on its way): every input is run_inactive (IN-06)
}

// Steer is a decoded prompt_steer for this Run.
type Steer struct {
	InputID string
	Hash    string
	Durable bool
	// Ready: the Run has a native Turn (it is not still starting, IN-09).
	Ready bool
	// Steering and DurableReceipts: what the Run's agent kind declares (IN-12).
	Steering, DurableReceipts bool
}

// WriteOutcome is how a native write ended.
type WriteOutcome string

const (
	WriteDone          WriteOutcome = "written"       // the native write completed
	WriteNotReady      WriteOutcome = "not-ready"     // the adapter is not ready; nothing written (IN-09)
	WriteRejected      WriteOutcome = "rejected"      // the adapter rejected it definitively; nothing written (IN-14)
	WriteUnimplemented WriteOutcome = "unimplemented" // the adapter does not implement input (IN-13)
	WriteUnknown       WriteOutcome = "unknown"       // timed out or broke after possible acceptance (IN-15, IN-17)
)

// WriteEnded reports the end of the native write of InputID.
type WriteEnded struct {
	InputID string
	Outcome WriteOutcome
}

// Verdict is the adapter's word on a written input.
type Verdict string

const (
	Consumed    Verdict = "consumed"     // native consumption confirmed (IN-04)
	Refused     Verdict = "refused"      // rejected definitively after the write (IN-14)
	NotConsumed Verdict = "not-consumed" // the Turn settled without confirming it (IN-15)
)

// Settled reports the adapter's verdict on a written input.
type Settled struct {
	InputID string
	Verdict Verdict
}

// TurnSettled: the native Turn settled; done is next, once no input is in flight.
type TurnSettled struct{}

// WaitExpired: the wait for an in-flight input before done ran out (IN-19).
type WaitExpired struct{}

// DoneSent: the Run's done went out; the Run takes no more input.
type DoneSent struct{}

// Event is one of the events above.
type Event interface{ event() }

func (Steer) event()       {}
func (WriteEnded) event()  {}
func (Settled) event()     {}
func (TurnSettled) event() {}
func (WaitExpired) event() {}
func (DoneSent) event()    {}

// Effect is what the daemon must do, in order.
type Effect interface{ String() string }

// Ack sends a prompt_steer_ack (id = Run ID) within the 5 s receipt budget (IN-18).
type Ack struct{ Receipt proto.PromptSteerAckPayload }

// StartWrite starts the native write of InputID, bounded at 10 s (IN-17).
type StartWrite struct{ InputID string }

// HoldDone arms the ≤ 15 s wait for the in-flight input before done (IN-19).
type HoldDone struct{}

// ReleaseDone lets done go out.
type ReleaseDone struct{}

func (a Ack) String() string {
	r := a.Receipt
	switch {
	case r.Written:
		return "ack " + r.InputID + " written"
	case r.Accepted:
		return "ack " + r.InputID + " accepted"
	}
	return "ack " + r.InputID + " " + r.ErrorCode
}
func (s StartWrite) String() string { return "write " + s.InputID }
func (HoldDone) String() string     { return "hold done" }
func (ReleaseDone) String() string  { return "release done" }

// Apply feeds one event to the Run and returns the effects, in the order they must happen. An
// event that cannot happen in the Run's state is an error and changes nothing.
func (r *Run) Apply(ev Event) ([]Effect, error) {
	switch ev := ev.(type) {
	case Steer:
		return r.steer(ev), nil
	case WriteEnded:
		return r.writeEnded(ev)
	case Settled:
		return r.settled(ev)
	case TurnSettled:
		if r.Ending || r.Ended {
			return nil, fmt.Errorf("turn settled twice")
		}
		r.Ending = true
		if r.Active != "" {
			return []Effect{HoldDone{}}, nil
		}
		return []Effect{ReleaseDone{}}, nil
	case WaitExpired:
		if !r.Ending || r.Ended {
			return nil, fmt.Errorf("no done is waiting")
		}
		return []Effect{ReleaseDone{}}, nil
	case DoneSent:
		r.Ended = true
		return nil, nil
	}
	return nil, fmt.Errorf("unknown event %T", ev)
}

func reject(id, code string) []Effect {
	return []Effect{Ack{proto.PromptSteerAckPayload{InputID: id, ErrorCode: code}}}
}

// steer decides a prompt_steer, in the order of protocol-facts §4.11's table.
func (r *Run) steer(s Steer) []Effect {
	if r.Ended || (r.Ending && !mutation.On(mutation.InCompletingRunTaken)) {
		return reject(s.InputID, proto.CodeRunInactive) // the Run is completing
	}
	if (s.Durable && !s.DurableReceipts && !mutation.On(mutation.InDurableWithoutCapability)) || (!s.Durable && !s.Steering) {
		return reject(s.InputID, proto.CodeUnsupported)
	}
	if rec := r.Records[s.InputID]; rec != nil {
		if len(r.Records) >= proto.MaxSteeringInputs && mutation.On(mutation.InLimitBeforeRepeat) {
			return reject(s.InputID, proto.CodeInputLimit)
		}
		switch {
		case rec.Hash != s.Hash || (rec.Durable != s.Durable && !mutation.On(mutation.InConflictDurableIgnored)):
			if mutation.On(mutation.InConflictReplacesRecord) {
				rec.Hash, rec.Durable = s.Hash, s.Durable
			}
			return reject(s.InputID, proto.CodeInputConflict)
		case rec.Phase == Final:
			return []Effect{Ack{*rec.Receipt}} // the stored receipt, nothing re-attempted
		case rec.Phase == Writing && mutation.On(mutation.InFlightAsBusy):
			return reject(s.InputID, proto.CodeBusy)
		case rec.Phase == Written && mutation.On(mutation.InWrittenRepeatBusy):
			return reject(s.InputID, proto.CodeBusy)
		default:
			return reject(s.InputID, proto.CodeInFlight)
		}
	}
	if len(r.Records) >= proto.MaxSteeringInputs {
		return reject(s.InputID, proto.CodeInputLimit)
	}
	if len(r.Records) == proto.MaxSteeringInputs-1 && mutation.On(mutation.InLimitAtLimitRefused) {
		return reject(s.InputID, proto.CodeInputLimit)
	}
	if !s.Ready {
		return reject(s.InputID, proto.CodeNotReady) // not recorded: a repeat is re-attempted
	}
	if r.Active != "" {
		if mutation.On(mutation.InBusyNamesActiveInput) {
			return reject(r.Active, proto.CodeBusy)
		}
		if mutation.On(mutation.InBusyStored) {
			r.store(s, proto.CodeBusy)
		}
		return reject(s.InputID, proto.CodeBusy) // not recorded either
	}
	if r.Records == nil {
		r.Records = map[string]*Record{}
	}
	r.Records[s.InputID] = &Record{ID: s.InputID, Hash: s.Hash, Durable: s.Durable, Phase: Writing}
	r.Order = append(r.Order, s.InputID)
	r.Active = s.InputID
	return []Effect{StartWrite{s.InputID}}
}

func (r *Run) inFlight(id string, want Phase) (*Record, error) {
	rec := r.Records[id]
	if rec == nil || rec.Phase != want {
		return nil, fmt.Errorf("input %q is not %s", id, want)
	}
	return rec, nil
}

func (r *Run) writeEnded(w WriteEnded) ([]Effect, error) {
	rec, err := r.inFlight(w.InputID, Writing)
	if err != nil {
		return nil, err
	}
	switch w.Outcome {
	case WriteDone:
		rec.Phase = Written
		if !rec.Durable {
			if mutation.On(mutation.InNonDurableAcceptedAtWrite) {
				return r.finish(rec, ""), nil
			}
			if mutation.On(mutation.InNonDurableWritten) {
				return []Effect{Ack{proto.PromptSteerAckPayload{InputID: rec.ID, Written: true}}}, nil
			}
			return nil, nil // written is a durable-receipt phase only (IN-03)
		}
		if mutation.On(mutation.InWrittenReceiptSkipped) {
			return nil, nil
		}
		return []Effect{Ack{proto.PromptSteerAckPayload{InputID: rec.ID, Written: true}}}, nil
	case WriteNotReady:
		if mutation.On(mutation.InNativeNotReadyStored) {
			return r.finish(rec, proto.CodeNotReady), nil
		}
		// Nothing was written: the input is forgotten, so Core's resend is attempted again.
		delete(r.Records, rec.ID)
		r.Order = slices.DeleteFunc(r.Order, func(id string) bool { return id == rec.ID })
		r.free(rec.ID)
		code := proto.CodeNotReady
		if mutation.On(mutation.InNativeNotReadyAsBusy) {
			code = proto.CodeBusy
		}
		return append(reject(rec.ID, code), r.released()...), nil
	case WriteRejected:
		return r.finish(rec, proto.CodeRejected), nil
	case WriteUnimplemented:
		if mutation.On(mutation.InUnimplementedUnsupported) {
			return r.finish(rec, proto.CodeUnsupported), nil
		}
		if mutation.On(mutation.CNRtUnimplementedInputRejected) {
			return r.finish(rec, proto.CodeRejected), nil
		}
		return r.finish(rec, proto.CodeContractViolation), nil
	case WriteUnknown:
		return r.finish(rec, proto.CodeOutcomeUnknown), nil
	}
	return nil, fmt.Errorf("unknown write outcome %q", w.Outcome)
}

func (r *Run) settled(s Settled) ([]Effect, error) {
	rec, err := r.inFlight(s.InputID, Written)
	if err != nil {
		return nil, err
	}
	switch s.Verdict {
	case Consumed:
		if mutation.On(mutation.InConsumptionUnreported) {
			return withoutAck(r.finish(rec, "")), nil
		}
		return r.finish(rec, ""), nil
	case Refused:
		if mutation.On(mutation.InLateRejectionUnknown) {
			return r.finish(rec, proto.CodeOutcomeUnknown), nil
		}
		return r.finish(rec, proto.CodeRejected), nil
	case NotConsumed:
		if mutation.On(mutation.InUnconsumedSilent) {
			return withoutAck(r.finish(rec, proto.CodeOutcomeUnknown)), nil
		}
		return r.finish(rec, proto.CodeOutcomeUnknown), nil
	}
	return nil, fmt.Errorf("unknown verdict %q", s.Verdict)
}

// finish stores the input's last receipt (accepted when code is empty) and frees the Run for the
// next input; a done that waited for it may go.
func (r *Run) finish(rec *Record, code string) []Effect {
	receipt := proto.PromptSteerAckPayload{InputID: rec.ID, Accepted: code == "", ErrorCode: code}
	if code == "" && rec.Durable && mutation.On(mutation.InAcceptedKeepsWritten) {
		receipt.Written = true // the written phase's flag left on the accepted receipt
	}
	rec.Phase, rec.Receipt = Final, &receipt
	r.free(rec.ID)
	return append([]Effect{Ack{receipt}}, r.released()...)
}

// withoutAck drops the receipt from finish's effects (the mutants that store a last receipt
// without sending it).
func withoutAck(effects []Effect) []Effect {
	return slices.DeleteFunc(effects, func(e Effect) bool { _, ack := e.(Ack); return ack })
}

// store records an input the machine refused as if it had been taken, with code as its stored
// receipt (the mutant that stores busy).
func (r *Run) store(s Steer, code string) {
	if r.Records == nil {
		r.Records = map[string]*Record{}
	}
	r.Records[s.InputID] = &Record{ID: s.InputID, Hash: s.Hash, Durable: s.Durable, Phase: Final,
		Receipt: &proto.PromptSteerAckPayload{InputID: s.InputID, ErrorCode: code}}
	r.Order = append(r.Order, s.InputID)
}

// free ends id's hold on the Run's one in-flight slot.
func (r *Run) free(id string) {
	if r.Active == id {
		r.Active = ""
	}
}

func (r *Run) released() []Effect {
	if r.Ending && !r.Ended && r.Active == "" {
		return []Effect{ReleaseDone{}}
	}
	return nil
}

// String renders the Run for tests: its flags and each record in creation order.
func (r *Run) String() string {
	var b strings.Builder
	switch {
	case r.Ended:
		b.WriteString("ended")
	case r.Ending:
		b.WriteString("ending")
	default:
		b.WriteString("running")
	}
	if r.Active != "" {
		b.WriteString(" active=" + r.Active)
	}
	fmt.Fprintf(&b, " inputs=%d", len(r.Records))
	for _, id := range r.Order {
		rec := r.Records[id]
		fmt.Fprintf(&b, "\n  %s %s hash=%s", rec.ID, rec.Phase, rec.Hash)
		if !rec.Durable {
			b.WriteString(" non-durable")
		}
		if rec.Receipt != nil {
			b.WriteString(" receipt=" + Ack{*rec.Receipt}.String()[len("ack "+rec.ID+" "):])
		}
	}
	return b.String()
}

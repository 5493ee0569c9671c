// Package interact is the reference Runtime's pure interactions machine (protocol-facts §4.8,
// §4.9, §4.12, §5): which interactions of a connection's Runs await Core's answer, which answers
// were applied (the replay memory), and which acknowledgement each answer gets. It does no I/O and
// reads no clock: the daemon feeds it events and carries out its verdicts.
package interact

import (
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// Applied-decision memory bounds (IA-13): at most MemoryEntries, an entry older than MemoryAge is
// evicted first.
const (
	MemoryEntries = 1024
	MemoryAge     = time.Hour
)

// Key names one interaction: its family and interaction ID (for a function, the Run ID and the
// call_id, since call IDs are only unique within a Run).
type Key struct {
	Family harness.Family
	ID     string
}

// FunctionKey is the Key of call callID of Run runID.
func FunctionKey(runID, callID string) Key {
	return Key{Family: harness.Function, ID: runID + "\x00" + callID}
}

// pending is an interaction emitted and not yet answered, withdrawn or ended with its Run.
type pending struct {
	runID     string
	questions map[string]bool // user choice: the emitted question IDs
}

type memo struct {
	fingerprint string
	at          time.Time
}

// Machine is the interaction state of one connection. Use New.
type Machine struct {
	pending map[Key]*pending
	applied map[Key]memo
	order   []Key // applied insertion order, oldest first
}

// New returns an empty machine.
func New() *Machine {
	return &Machine{pending: map[Key]*pending{}, applied: map[Key]memo{}}
}

// Emitted records an interaction the Run's Turn sent to Core; questions are the emitted question IDs
// of a user-choice prompt.
func (m *Machine) Emitted(k Key, runID string, questions []string) {
	p := &pending{runID: runID}
	if len(questions) > 0 {
		p.questions = map[string]bool{}
		for _, q := range questions {
			p.questions[q] = true
		}
	}
	m.pending[k] = p
}

// Withdrawn: the Turn withdrew the interaction (permission_cancel); it is no longer pending.
func (m *Machine) Withdrawn(k Key) { delete(m.pending, k) }

// RunEnded: the Run's done went out; none of its interactions is pending any more.
func (m *Machine) RunEnded(runID string) {
	for k, p := range m.pending {
		if p.runID == runID {
			delete(m.pending, k)
		}
	}
}

// Pending reports whether k awaits an answer.
func (m *Machine) Pending(k Key) bool { return m.pending[k] != nil }

// Answer is a decoded decision or function result.
type Answer struct {
	Key Key
	// Fingerprint identifies the answer's content, delivery_id excluded (IA-06).
	Fingerprint string
	Now         time.Time
	// Declared: the Run's agent kind declares the family's capability (permissions for both
	// decision families, function_tools for results): IA-10, IA-20, FN-10.
	Declared bool
	// InvalidResult: a function result whose content the Runtime cannot take (FN-08, FN-14).
	InvalidResult string
	// Answered: the question IDs a user-choice decision answers (IA-18).
	Answered []string
}

// Verdict is what to do with an Answer: acknowledge at once (Ack set), or apply natively (Apply).
type Verdict struct {
	Apply bool
	Ack   proto.InteractionDecisionAckPayload // DeliveryID is the caller's to fill
}

func ack(code, text string) Verdict {
	return Verdict{Ack: proto.InteractionDecisionAckPayload{ErrorCode: code, Error: text}}
}

// Decide checks an answer in the order of §4.8/§4.12: capability, content, replay memory, pending.
// Nothing it refuses consumes the pending interaction.
func (m *Machine) Decide(a Answer) Verdict {
	if !a.Declared {
		return ack(proto.CodeUnsupported, "the agent kind does not declare this family's capability")
	}
	if a.InvalidResult != "" {
		return ack(proto.CodeInvalidResult, a.InvalidResult)
	}
	m.evictExpired(a.Now)
	if prior, ok := m.applied[a.Key]; ok {
		if prior.fingerprint == a.Fingerprint {
			return Verdict{Ack: proto.InteractionDecisionAckPayload{Applied: true}} // IA-06: never applied twice
		}
		return ack(proto.CodeDecisionConflict, "this interaction was already answered with other content")
	}
	p := m.pending[a.Key]
	if p == nil {
		return ack(proto.CodeNotPending, "no such interaction awaits an answer")
	}
	for _, q := range a.Answered {
		if !p.questions[q] {
			return ack(proto.CodeContractViolation, "question_answers names question "+q+" the request did not emit")
		}
	}
	return Verdict{Apply: true}
}

// Outcome is how the native side took an answer.
type Outcome string

const (
	Applied       Outcome = "applied"
	NotReady      Outcome = "not_ready"     // the native session is not yet published (IA-09, FN-09)
	Unknown       Outcome = "unknown"       // the native side knows no such interaction (IA-08, FN-12)
	Unimplemented Outcome = "unimplemented" // declared but unimplemented (IA-11, FN-11)
	Failed        Outcome = "failed"        // any other native failure (IA-11, FN-11)
)

// Settled records the native outcome of an applied answer and returns its acknowledgement. Only an
// applied answer consumes the interaction and enters the replay memory.
func (m *Machine) Settled(a Answer, o Outcome) proto.InteractionDecisionAckPayload {
	switch o {
	case Applied:
		delete(m.pending, a.Key)
		m.remember(a.Key, a.Fingerprint, a.Now)
		return proto.InteractionDecisionAckPayload{Applied: true}
	case NotReady:
		return ack(proto.CodeNotReady, "the native session is not yet published").Ack
	case Unknown:
		delete(m.pending, a.Key)
		return ack(proto.CodeNotPending, "the native side knows no such interaction").Ack
	case Unimplemented:
		return ack(proto.CodeContractViolation, "the adapter does not implement this family").Ack
	default:
		return ack(proto.CodeRuntimeError, "the native side failed to apply the answer").Ack
	}
}

// remember stores an applied answer: expired entries go first, then the oldest while full (IA-13).
func (m *Machine) remember(k Key, fingerprint string, now time.Time) {
	m.evictExpired(now)
	limit := MemoryEntries
	if mutation.On(mutation.IAMemoryHolds1023) {
		limit-- // evicts once it holds 1023
	}
	for len(m.order) >= limit && !mutation.On(mutation.IAMemoryUnbounded) {
		delete(m.applied, m.order[0])
		m.order = m.order[1:]
	}
	m.applied[k] = memo{fingerprint: fingerprint, at: now}
	m.order = append(m.order, k)
}

func (m *Machine) evictExpired(now time.Time) {
	age := MemoryAge
	if len(m.order) > 0 && mutation.On(mutation.IAMemoryExpiresEarly) {
		age /= 2
	}
	for len(m.order) > 0 && now.Sub(m.applied[m.order[0]].at) > age {
		delete(m.applied, m.order[0])
		m.order = m.order[1:]
	}
}

// Remembered reports how many applied answers the memory holds.
func (m *Machine) Remembered() int { return len(m.order) }

// Fingerprint returns the fingerprint of the applied answer to k, if the memory holds one.
func (m *Machine) Fingerprint(k Key) (string, bool) {
	e, ok := m.applied[k]
	return e.fingerprint, ok
}

// Forget drops k from the replay memory (the mutants use it).
func (m *Machine) Forget(k Key) { delete(m.applied, k) }

// Replace makes fingerprint the content remembered as applied to k (the mutants use it).
func (m *Machine) Replace(k Key, fingerprint string, now time.Time) {
	if e, ok := m.applied[k]; ok {
		e.fingerprint = fingerprint
		m.applied[k] = e
		return
	}
	m.remember(k, fingerprint, now)
}

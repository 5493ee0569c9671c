package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/wirecheck/wirecheck/proto"
)

// Environment types a Turn runs in.
const (
	EnvironmentNone         = "none"
	EnvironmentOpenAIHosted = "openai_hosted"
	EnvironmentSelfHosted   = "self_hosted"
)

// Session is Core's durable Session record: the device it is bound to and its immutable
// configuration. MCP bearer tokens are removed before it is stored.
type Session struct {
	ID              string                     `json:"session_id"`
	DeviceID        string                     `json:"device_id"`
	EnvironmentType string                     `json:"environment_type"`
	Configuration   proto.PromptRequestPayload `json:"configuration"`
	NativeSessionID string                     `json:"native_session_id,omitempty"`
	CreatedAt       time.Time                  `json:"created_at"`
}

// Phases of a Turn. package execution owns the transitions between them.
const (
	PhaseQueued     = "queued"     // recorded, not claimed: nothing sent to a Runtime
	PhasePreparing  = "preparing"  // claimed: execution_prepare may have been sent
	PhaseReady      = "ready"      // the admission is ready; no input submitted
	PhaseStarting   = "starting"   // execution_start may have been sent: input may be submitted
	PhaseRunning    = "running"    // started: the Run owns the admission
	PhaseCancelling = "cancelling" // prompt_cancel may have been sent; its receipt owns the outcome
	PhaseDone       = "done"       // the outcome is recorded
)

// Dispatched reports whether input may have reached a Runtime in this phase.
func Dispatched(phase string) bool {
	return phase == PhaseStarting || phase == PhaseRunning || phase == PhaseCancelling
}

// Turn is the mutable progress of one Turn.
type Turn struct {
	ID              string             `json:"turn_id"`
	SessionID       string             `json:"session_id"`
	DeviceID        string             `json:"device_id"`
	AgentKind       string             `json:"agent_kind"`
	EnvironmentType string             `json:"environment_type"`
	RunID           string             `json:"run_id"`
	Phase           string             `json:"phase"`
	PrepareID       string             `json:"prepare_id,omitempty"` // current preparation request ID
	Handle          string             `json:"handle,omitempty"`
	ExecutorID      string             `json:"executor_id,omitempty"`
	Claims          int                `json:"claims,omitempty"`    // execution_prepare attempts
	Recovered       bool               `json:"recovered,omitempty"` // the one retry after executor_unavailable was used
	CancelRequested bool               `json:"cancel_requested,omitempty"`
	Input           proto.MessageInput `json:"input"`
	// Inputs are the active inputs a caller delivered to the running Turn, in order; InputCursor
	// counts those the Runtime accepted (only accepted advances it, never written or a send).
	Inputs      []Input `json:"inputs,omitempty"`
	InputCursor int     `json:"input_cursor,omitempty"`
	// Interactions are the permission requests, user-choice prompts and function calls of the
	// Run, in the order they arrived, with the answer a caller gave and its receipt.
	Interactions []Interaction `json:"interactions,omitempty"`
	// DecisionSeq counts the decisions sent: each draws a fresh delivery ID from it.
	DecisionSeq int `json:"decision_seq,omitempty"`
	// Admitted is the declaration the Turn was admitted with at its last claim. A later heartbeat
	// cannot add operations to it.
	Admitted *proto.AgentKindCapabilities `json:"admitted,omitempty"`
	// Subagents are the sub-agent observation frames of the Run Core accepted, in order (only a
	// Turn whose configuration set observe_subagent_identities gets any).
	Subagents []SubagentEvent `json:"subagents,omitempty"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	// Outcome is filled from the outcomes bucket when read; it is not part of the turn record.
	Outcome *Outcome `json:"outcome,omitempty"`
}

// States of an active input (Turn.Inputs).
const (
	InputPending  = "pending"  // not yet sent, or waiting to be resent after not_ready/busy
	InputSent     = "sent"     // prompt_steer queued; its receipt is awaited
	InputWritten  = "written"  // the native write completed: not acceptance
	InputAccepted = "accepted" // the adapter confirmed native consumption
	InputFailed   = "failed"   // a definite receipt code (Code) ended it
	InputUnknown  = "unknown"  // sent, and its outcome can no longer be known: never resent
)

// Input is one active input of a Turn. ID is what prompt_steer carries (Core's decimal sequence
// number); Key is the caller's idempotency key.
type Input struct {
	ID    string             `json:"input_id"`
	Key   string             `json:"key"`
	Input proto.MessageInput `json:"input"`
	State string             `json:"state"`
	Code  string             `json:"error_code,omitempty"` // the receipt's code, once one arrived
	Sends int                `json:"sends,omitempty"`      // prompt_steer frames queued for it
}

// Kinds of an interaction (Turn.Interactions).
const (
	InteractionPermission = "permission"  // permission_request → permission_decision
	InteractionUserChoice = "user_choice" // prompt_for_user_choice → prompt_for_user_choice_decision
	InteractionFunction   = "function"    // function_call → function_result
)

// States of an interaction.
const (
	InteractionPending  = "pending"  // awaits a caller's answer
	InteractionAnswered = "answered" // answered; queued behind the decision whose ack is awaited
	InteractionSent     = "sent"     // the decision went out; its ack is awaited (15 s at most)
	InteractionApplied  = "applied"  // the ack said applied
	InteractionRefused  = "refused"  // the ack was not applied (Code)
	InteractionUnknown  = "unknown"  // sent, and no ack can be expected any more: never resent
	InteractionDetached = "detached" // permission_cancel withdrew it before a decision went out
)

// Interaction is one request of the Run a caller answers. ID is the request's interaction ID
// (request_id, ask_id) or a function's call_id; Key is the caller's idempotency key.
type Interaction struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	Request    json.RawMessage `json:"request"`
	State      string          `json:"state"`
	Key        string          `json:"key,omitempty"`
	Answer     json.RawMessage `json:"answer,omitempty"`      // the decision without delivery_id
	DeliveryID string          `json:"delivery_id,omitempty"` // of the one decision sent
	Code       string          `json:"error_code,omitempty"`  // the ack's code, or why no ack came
}

// Outcome is a Turn's terminal result, written once.
type Outcome struct {
	Status string `json:"status"`               // completed, failed, cancelled
	Reason string `json:"error_code,omitempty"` // Core's error code (protocol-facts §6.2)
	Error  string `json:"error,omitempty"`
	// EffectUnknown: the native effect is unknown (a failed status does not prove the Harness
	// failed, that nothing happened, or that cleanup completed).
	EffectUnknown bool `json:"effect_unknown,omitempty"`
	// Engine classification of the last error frame (§6.1); exposed only with engine_failed.
	EngineErrorCode  string `json:"engine_error_code,omitempty"`
	EngineHTTPStatus int    `json:"engine_http_status,omitempty"`
	// PreparationErrorCode is the finite code of a preparation failure or rejection.
	PreparationErrorCode string `json:"preparation_error_code,omitempty"`
	// Denied names the capabilities whose absence denied admission at the final check.
	Denied []string `json:"denied,omitempty"`

	Content             string            `json:"content,omitempty"`
	Transcript          string            `json:"transcript,omitempty"`
	Usage               *proto.Usage      `json:"usage,omitempty"`
	Metadata            map[string]string `json:"metadata,omitempty"`
	SourceCompletedAtMS int64             `json:"source_completed_at_ms,omitempty"`
	DoneObserved        bool              `json:"done_observed,omitempty"`
	// CancelReceipt is the cancellation receipt, when one arrived.
	CancelReceipt *proto.InteractionDecisionAckPayload `json:"cancel_receipt,omitempty"`
	RecordedAt    time.Time                            `json:"recorded_at"`
}

// CreateTurn records a new Session (if s is not nil) and a queued Turn, and appends events to the
// Turn's journal, in one transaction.
func (st *Store) CreateTurn(s *Session, t *Turn, events ...Event) error {
	now := st.clk.Now().UTC()
	t.CreatedAt, t.UpdatedAt = now, now
	if t.Phase == "" {
		t.Phase = PhaseQueued
	}
	raws, err := st.encodeEvents(events)
	if err != nil {
		return fmt.Errorf("journal of turn %s: %w", t.ID, err)
	}
	return st.update(func(tx *bolt.Tx) error {
		if s != nil {
			if s.CreatedAt.IsZero() {
				s.CreatedAt = now
			}
			redacted := *s
			redacted.Configuration = RedactConfiguration(s.Configuration)
			if err := put(tx.Bucket(bSessions), s.ID, redacted); err != nil {
				return err
			}
		}
		tb := tx.Bucket(bTurns)
		if tb.Get([]byte(t.ID)) != nil {
			return fmt.Errorf("turn %s: %w", t.ID, ErrExists)
		}
		if tx.Bucket(bRuns).Get([]byte(t.RunID)) != nil {
			return fmt.Errorf("run %s: %w", t.RunID, ErrExists)
		}
		rec := *t
		rec.Outcome = nil
		if err := put(tb, t.ID, rec); err != nil {
			return err
		}
		if err := tx.Bucket(bRuns).Put([]byte(t.RunID), []byte(t.ID)); err != nil {
			return err
		}
		if err := tx.Bucket(bInflight).Put([]byte(t.ID), []byte(t.Phase)); err != nil {
			return err
		}
		return putEvents(tx, t.ID, raws)
	})
}

// RedactConfiguration removes every MCP bearer token: they are transient secrets that are never
// persisted or logged.
func RedactConfiguration(c proto.PromptRequestPayload) proto.PromptRequestPayload {
	if len(c.MCPHTTPServers) > 0 {
		servers := append([]proto.MCPHTTPServer(nil), c.MCPHTTPServers...)
		for i := range servers {
			if servers[i].BearerToken != "" {
				servers[i].BearerToken = "[redacted]"
			}
		}
		c.MCPHTTPServers = servers
	}
	return c
}

// Commit applies fn (when not nil) to a Turn without an outcome and appends events to its
// journal, in order, in one transaction: a runner's writes of several steps cost one fsync
// (execution's runner batches them). An event keeps its At when set (the time Core observed it,
// not the time it became durable). It returns the record as committed (nil when fn is nil). fn
// may run more than once and must depend only on the record it is given.
//
// The record is read, changed and encoded outside the group writer (group.go), which then only
// checks that the stored record is still the one read (a Turn has one runner, so it nearly always
// is) and writes it: the JSON work of a busy Core's most frequent write runs in parallel instead
// of in the writer's serial section. A record changed meanwhile is read again.
func (st *Store) Commit(id string, fn func(*Turn) error, events ...Event) (*Turn, error) {
	raws, err := st.encodeEvents(events)
	if err != nil {
		return nil, fmt.Errorf("journal of turn %s: %w", id, err)
	}
	if fn == nil {
		err := st.update(func(tx *bolt.Tx) error { return putEvents(tx, id, raws) })
		if err != nil {
			return nil, fmt.Errorf("journal of turn %s: %w", id, err)
		}
		return nil, nil
	}
	for range 3 {
		var old []byte
		err := st.db.View(func(tx *bolt.Tx) error {
			if tx.Bucket(bOutcomes).Get([]byte(id)) != nil {
				return fmt.Errorf("turn %s: %w", id, ErrTerminal)
			}
			raw := tx.Bucket(bTurns).Get([]byte(id))
			if raw == nil {
				return fmt.Errorf("turn %s: %w", id, ErrNotFound)
			}
			old = bytes.Clone(raw)
			return nil
		})
		if err != nil {
			return nil, err
		}
		var out Turn
		if err := json.Unmarshal(old, &out); err != nil {
			return nil, fmt.Errorf("turn %s: %w", id, err)
		}
		if err := fn(&out); err != nil {
			return nil, err
		}
		out.UpdatedAt = st.clk.Now().UTC()
		out.Outcome = nil
		raw, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		stale := false
		err = st.update(func(tx *bolt.Tx) error {
			stale = false
			if tx.Bucket(bOutcomes).Get([]byte(id)) != nil {
				return fmt.Errorf("turn %s: %w", id, ErrTerminal)
			}
			tb := tx.Bucket(bTurns)
			if !bytes.Equal(tb.Get([]byte(id)), old) {
				stale = true
				return nil
			}
			if err := tb.Put([]byte(id), raw); err != nil {
				return err
			}
			if err := tx.Bucket(bInflight).Put([]byte(id), []byte(out.Phase)); err != nil {
				return err
			}
			return putEvents(tx, id, raws)
		})
		if err != nil {
			return nil, err
		}
		if !stale {
			return &out, nil
		}
	}
	return st.updateTurnInWriter(id, fn, raws)
}

// updateTurnInWriter is Commit done wholly in the writer: for a record that kept changing.
func (st *Store) updateTurnInWriter(id string, fn func(*Turn) error, events [][]byte) (*Turn, error) {
	var out Turn
	err := st.update(func(tx *bolt.Tx) error {
		out = Turn{} // a rerun (group.go) starts from the record, not from its last run
		if tx.Bucket(bOutcomes).Get([]byte(id)) != nil {
			return fmt.Errorf("turn %s: %w", id, ErrTerminal)
		}
		tb := tx.Bucket(bTurns)
		if err := get(tb, id, &out); err != nil {
			return fmt.Errorf("turn %s: %w", id, err)
		}
		if err := fn(&out); err != nil {
			return err
		}
		out.UpdatedAt = st.clk.Now().UTC()
		out.Outcome = nil
		if err := put(tb, id, out); err != nil {
			return err
		}
		if err := tx.Bucket(bInflight).Put([]byte(id), []byte(out.Phase)); err != nil {
			return err
		}
		return putEvents(tx, id, events)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Finish records a Turn's outcome, once, and moves it to PhaseDone in the same transaction; the
// journal events given are appended in that transaction too.
func (st *Store) Finish(id string, o *Outcome, events ...Event) (*Turn, error) {
	return st.FinishWith(id, nil, o, events...)
}

// FinishWith is Finish that also applies fn (when not nil) to the record in the same transaction.
func (st *Store) FinishWith(id string, fn func(*Turn), o *Outcome, events ...Event) (*Turn, error) {
	var out Turn
	err := st.update(func(tx *bolt.Tx) error {
		out = Turn{} // a rerun (group.go) starts from the record, not from its last run
		ob := tx.Bucket(bOutcomes)
		if ob.Get([]byte(id)) != nil {
			return fmt.Errorf("turn %s: %w", id, ErrTerminal)
		}
		tb := tx.Bucket(bTurns)
		if err := get(tb, id, &out); err != nil {
			return fmt.Errorf("turn %s: %w", id, err)
		}
		if fn != nil {
			fn(&out)
		}
		now := st.clk.Now().UTC()
		o.RecordedAt = now
		out.Phase, out.UpdatedAt, out.Outcome = PhaseDone, now, nil
		if err := put(tb, id, out); err != nil {
			return err
		}
		if err := put(ob, id, o); err != nil {
			return err
		}
		for _, ev := range events {
			if ev.At.IsZero() {
				ev.At = now
			}
			if _, err := appendEvent(tx, id, ev); err != nil {
				return err
			}
		}
		return tx.Bucket(bInflight).Delete([]byte(id))
	})
	if err != nil {
		return nil, err
	}
	out.Outcome = o
	return &out, nil
}

func readTurn(tx *bolt.Tx, id string) (*Turn, error) {
	var t Turn
	if err := get(tx.Bucket(bTurns), id, &t); err != nil {
		return nil, fmt.Errorf("turn %s: %w", id, err)
	}
	var o Outcome
	switch err := get(tx.Bucket(bOutcomes), id, &o); err {
	case nil:
		t.Outcome = &o
	case ErrNotFound:
	default:
		return nil, err
	}
	return &t, nil
}

// Turn returns a Turn with its outcome, if recorded.
func (st *Store) Turn(id string) (*Turn, error) {
	var t *Turn
	err := st.db.View(func(tx *bolt.Tx) (err error) { t, err = readTurn(tx, id); return err })
	return t, err
}

// TurnByRun returns the Turn of a Run ID.
func (st *Store) TurnByRun(runID string) (*Turn, error) {
	var t *Turn
	err := st.db.View(func(tx *bolt.Tx) error {
		id := tx.Bucket(bRuns).Get([]byte(runID))
		if id == nil {
			return fmt.Errorf("run %s: %w", runID, ErrNotFound)
		}
		var err error
		t, err = readTurn(tx, string(id))
		return err
	})
	return t, err
}

// Session returns a Session record.
func (st *Store) Session(id string) (*Session, error) {
	var s Session
	err := st.db.View(func(tx *bolt.Tx) error { return get(tx.Bucket(bSessions), id, &s) })
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// Turns returns every Turn with its outcome, oldest first.
func (st *Store) Turns() ([]*Turn, error) {
	var out []*Turn
	err := st.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bTurns).ForEach(func(k, _ []byte) error {
			t, err := readTurn(tx, string(k))
			if err != nil {
				return err
			}
			out = append(out, t)
			return nil
		})
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, err
}

// InFlight is a Turn without an outcome, as a restart finds it.
type InFlight struct {
	TurnID string
	Phase  string
	// Inputs and InputCursor as the record left them.
	Inputs      []Input
	InputCursor int
	// Interactions as the record left them.
	Interactions []Interaction
}

// Settlement is what a restart records for a Turn in flight: its outcome and, when not nil, the
// inputs as they stand after it (those awaiting a receipt became unknown).
type Settlement struct {
	Outcome *Outcome
	Inputs  []Input
	// Interactions, when not nil, as they stand after it (a decision that awaited its ack is
	// unknown).
	Interactions []Interaction
}

// Reconcile hands every Turn without an outcome to decide, and records the outcomes it returns,
// all in one transaction: a restarted Core settles what it cannot know before it serves anything.
// decide sees only what the Turn had committed; it must not invent what it did not confirm.
func (st *Store) Reconcile(decide func(InFlight) *Outcome) ([]InFlight, error) {
	return st.ReconcileWith(func(f InFlight) *Settlement {
		if o := decide(f); o != nil {
			return &Settlement{Outcome: o}
		}
		return nil
	})
}

// ReconcileWith is Reconcile whose decision may also rewrite the Turn's inputs.
func (st *Store) ReconcileWith(decide func(InFlight) *Settlement) ([]InFlight, error) {
	var settled []InFlight
	err := st.db.Update(func(tx *bolt.Tx) error {
		ib, ob, tb := tx.Bucket(bInflight), tx.Bucket(bOutcomes), tx.Bucket(bTurns)
		now := st.clk.Now().UTC()
		var keys [][]byte
		c := ib.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			f := InFlight{TurnID: string(k), Phase: string(v)}
			var rec Turn
			if tb.Get(k) == nil {
				return fmt.Errorf("in-flight turn %s has no record", f.TurnID)
			}
			if err := get(tb, f.TurnID, &rec); err != nil {
				return err
			}
			f.Inputs, f.InputCursor, f.Interactions = rec.Inputs, rec.InputCursor, rec.Interactions
			s := decide(f)
			if s == nil || s.Outcome == nil {
				continue
			}
			o := s.Outcome
			if ob.Get(k) != nil {
				return fmt.Errorf("turn %s: %w", f.TurnID, ErrTerminal)
			}
			o.RecordedAt = now
			raw, err := json.Marshal(o)
			if err != nil {
				return err
			}
			if err := ob.Put(k, raw); err != nil {
				return err
			}
			if s.Inputs != nil || s.Interactions != nil {
				if s.Inputs != nil {
					rec.Inputs = s.Inputs
				}
				if s.Interactions != nil {
					rec.Interactions = s.Interactions
				}
				rec.UpdatedAt = now
				if err := put(tb, f.TurnID, rec); err != nil {
					return err
				}
			}
			keys = append(keys, append([]byte(nil), k...))
			settled = append(settled, f)
		}
		for _, k := range keys {
			if err := ib.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	return settled, err
}

package contract_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/reference/daemon/contract"
)

// These pin what docs/contract-harness.md says about the script: where it is read from, its
// defaults, and that a script that does not say exactly one known thing is refused.

func TestParseDefaults(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, opts := range []string{``, `{}`, `{"other_harness":{"x":1}}`, `{"contract":{}}`, `{"contract":null}`} {
		s, err := contract.Parse(json.RawMessage(opts))
		if err != nil {
			t.Errorf("agent_options %q: %v", opts, err)
			continue
		}
		if s.Setup != nil || s.Turn != nil || s.Cancel != nil || s.Reusable != nil || s.NativeSession != "" || s.CloseFails || s.CloseDelayMS != 0 {
			t.Errorf("agent_options %q is not the empty script: %+v", opts, s)
		}
	}
}

func TestParseRejects(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, tc := range []struct{ opts, want string }{
		{`[]`, "agent_options"},
		{`{"contract":{"reuseable":false}}`, "reuseable: unknown member"},
		{`{"contract":{"setup":{"fails":true}}}`, "setup.fails: unknown member"},
		{`{"contract":{"turn":{"events":[{"delta":"a","thinking":"b"}]}}}`, "events[0]: needs exactly one member, has 2"},
		{`{"contract":{"turn":{"events":[{}]}}}`, "events[0]: needs exactly one member, has 0"},
		{`{"contract":{"turn":{"events":[{"delta":null}]}}}`, "turn.events[0].delta: must not be null"},
		{`{"contract":{"turn":{"events":[{"tool_call":{"id":"t","name":"n","stage":"before","extra":1}}]}}}`, "turn.events[0].tool_call.extra: unknown member"},
		{`{"contract":{"cancel":{"outcome":{"content":"x","extra":1}}}}`, "cancel.outcome.extra: unknown member"},
		{`{"contract":{"setup":{"delay_ms":1.5}}}`, "delay_ms"},
		{`{"contract":{"reusable":"no"}}`, "reusable"},
		{`{"contract":{"close_delay_ms":"1s"}}`, "close_delay_ms"},
		{`{"contract":{"turn":{"input":{"defaults":{}}}}}`, "turn.input.defaults: unknown member"},
		{`{"contract":{"turn":{"input":{"by_id":{"1":{"write_ms":1,"accepted":true}}}}}}`, "accepted: unknown member"},
		{`{"contract":{"turn":{"input":{"default":{"write_ms":"10"}}}}}`, "write_ms"},
		{`{"contract":{"turn":{"input":{"default":{"write_hangs":true,"reject":true}}}}}`, "turn.input.default: at most one of write_hangs, write_fails and reject"},
		{`{"contract":{"turn":{"input":{"by_id":{"7":{"no_accept":true,"reject_late":true}}}}}}`, `turn.input.by_id["7"]: at most one of no_accept and reject_late`},
		{`{"contract":{"turn":{"input":{"by_id":[]}}}}`, "by_id"},
		{`{"contract":{"turn":{"report_deliveries":"yes"}}}`, "report_deliveries"},
		{`{"contract":{"turn":{"report_delivery":true}}}`, "turn.report_delivery: unknown member"},
	} {
		_, err := contract.Parse(json.RawMessage(tc.opts))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("agent_options %s: error %v, want one containing %q", tc.opts, err, tc.want)
		}
	}
}

// TestParseRejectsMemberNamesInAnotherCase: JSON member names are case-sensitive on this wire, but
// encoding/json folds case when it matches struct fields, so {"Turn": ...} or {"REUSABLE": false}
// is read as turn/reusable instead of failing as an unknown member.
func TestParseRejectsMemberNamesInAnotherCase(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, opts := range []string{
		`{"contract":{"Turn":{"wait_for_cancel":true}}}`,
		`{"contract":{"REUSABLE":false}}`,
		`{"contract":{"cancel":{"Settle_MS":100}}}`,
	} {
		if _, err := contract.Parse(json.RawMessage(opts)); err == nil {
			t.Errorf("agent_options %s was accepted", opts)
		}
	}
}

// TestParseRejectsUnknownMembersOfAnErrorEvent: proto.ErrorPayload decodes leniently (its
// UnmarshalJSON normalizes the engine classification and ignores other members), so the strict
// decoder of the script does not reach inside turn.events[].error.
func TestParseRejectsUnknownMembersOfAnErrorEvent(t *testing.T) {
	defer goleak.VerifyNone(t)
	if _, err := contract.Parse(json.RawMessage(`{"contract":{"turn":{"events":[{"error":{"error":"boom","cod":"server_error"}}]}}}`)); err == nil {
		t.Error(`{"error":"boom","cod":"server_error"} was accepted`)
	}
}

// TestParseRejectsIncompleteTokenCounts: the five counts of usage.tokens are required on the wire,
// and an absent measurement is unknown, not zero; the script's decoder accepts a partial tokens
// object and the Runtime then sends the missing counts as 0.
func TestParseRejectsIncompleteTokenCounts(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, opts := range []string{
		`{"contract":{"turn":{"usage":{"tokens":{"input_tokens":1}}}}}`,
		`{"contract":{"turn":{"events":[{"usage":{"tokens":{"output_tokens":2}}}]}}}`,
		`{"contract":{"cancel":{"outcome":{"content":"","usage":{"tokens":{"total_tokens":3}}}}}}`,
	} {
		if _, err := contract.Parse(json.RawMessage(opts)); err == nil {
			t.Errorf("agent_options %s was accepted", opts)
		}
	}
}

package contract_test

import (
	"encoding/json"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/reference/daemon/contract"
)

// FuzzParse: the script decoder never panics on any agent_options, and a script it accepts has
// events with exactly one member each.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"contract":{}}`,
		`{"contract":{"setup":{"fail":true,"delay_ms":5}}}`,
		`{"contract":{"turn":{"events":[{"delta":"a"},{"usage":{"input_tokens":1}},{"error":{"error":"x","code":"server_error"}}],"content":"c","wait_for_cancel":true},"cancel":{"settle_ms":100,"outcome":{"content":"p"}},"reusable":false,"native_session":"n","close_fails":true}}`,
		`{"contract":{"turn":{"input":{"ready_ms":100,"default":{"write_ms":5,"accept_ms":10},"by_id":{"2":{"write_hangs":true},"3":{"reject":true,"no_accept":true}}}}}}`,
		`{"contract":{"turn":{"input":{"unimplemented":true,"by_id":{"x":{"write_fails":true,"reject_late":true}}}}}}`,
		`{"contract":{"turn":{"events":[{"permission_request":{"request":{"request_id":"p","tool":"t","title":"x"},"native":["not_ready","applied"],"withdraw_ms":5}},{"prompt_for_user_choice":{"prompt":{"ask_id":"a","questions":[{"id":"q","question":"?","options":[{"label":"l"}]}]}}},{"function_call":{"call":{"call_id":"c","name":"f","arguments":{}},"native":["fails"]}}]}}}`,
		`{"contract":{"turn":{"events":[{"permission_request":{"request":{"request_id":" ","tool":"t","title":"x"},"native":["maybe"]}}]}}}`,
		`{"contract":{"turn":{"inspect":{"files":["/workspace/a","/workspace"],"env":["A"],"skills":true,"plugins":true}}}}`,
		`{"contract":{"turn":{"inspect":{"files":["/workspace/../a"],"env":["="]}}}}`,
		`{"contract":{"turn":{"report_deliveries":true,"input":{"by_id":{"1":{"reject":true}}}}}}`,
		`[]`, `{"contract":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := contract.Parse(json.RawMessage(data))
		if err != nil || s.Turn == nil {
			return
		}
		if in := s.Turn.Input; in != nil {
			for _, b := range append(slices.Collect(maps.Values(in.ByID)), valueOr(in.Default)) {
				if count(b.WriteHangs, b.WriteFails, b.Reject) > 1 || count(b.NoAccept, b.RejectLate) > 1 {
					t.Fatalf("accepted a contradictory input behaviour %+v: %s", b, data)
				}
			}
		}
		if in := s.Turn.Inspect; in != nil {
			for _, f := range in.Files {
				if f != "/workspace" && (!strings.HasPrefix(f, "/workspace/") || path.Clean(f) != f) {
					t.Fatalf("accepted an inspect path outside the workspace %q: %s", f, data)
				}
			}
			for _, n := range in.Env {
				if n == "" || strings.Contains(n, "=") {
					t.Fatalf("accepted an inspect env name %q: %s", n, data)
				}
			}
		}
		for i, e := range s.Turn.Events {
			n := 0
			for _, set := range []bool{e.Delta != nil, e.Thinking != nil, e.OutputMessage != nil, e.ToolCall != nil, e.Usage != nil, e.Error != nil, e.DelayMS != nil,
				e.Permission != nil, e.UserChoice != nil, e.FunctionCall != nil} {
				if set {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("accepted event %d with %d members: %s", i, n, data)
			}
			for _, native := range [][]string{nativeOf(e)} {
				for _, o := range native {
					if !slices.Contains([]string{"applied", "not_ready", "fails", "unimplemented", "unknown"}, o) {
						t.Fatalf("accepted event %d with native answer %q: %s", i, o, data)
					}
				}
			}
			if e.Permission != nil && strings.TrimSpace(e.Permission.Request.RequestID) == "" {
				t.Fatalf("accepted event %d with a blank request_id: %s", i, data)
			}
		}
	})
}

func nativeOf(e contract.EventStep) []string {
	switch {
	case e.Permission != nil:
		return e.Permission.Native
	case e.UserChoice != nil:
		return e.UserChoice.Native
	case e.FunctionCall != nil:
		return e.FunctionCall.Native
	}
	return nil
}

func valueOr(b *contract.InputBehaviour) contract.InputBehaviour {
	if b == nil {
		return contract.InputBehaviour{}
	}
	return *b
}

func count(flags ...bool) int {
	return len(slices.DeleteFunc(flags, func(f bool) bool { return !f }))
}

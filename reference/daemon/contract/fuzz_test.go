package contract_test

import (
	"encoding/json"
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
		`[]`, `{"contract":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := contract.Parse(json.RawMessage(data))
		if err != nil || s.Turn == nil {
			return
		}
		for i, e := range s.Turn.Events {
			n := 0
			for _, set := range []bool{e.Delta != nil, e.Thinking != nil, e.OutputMessage != nil, e.ToolCall != nil, e.Usage != nil, e.Error != nil, e.DelayMS != nil} {
				if set {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("accepted event %d with %d members: %s", i, n, data)
			}
		}
	})
}

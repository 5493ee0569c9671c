package execution

import (
	"errors"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/workspace"
)

// A read whose workspace_read payload, as sent, would be over 8 KiB is refused inside Core
// (WS-02); JSON escapes count, and a read through a preparation reserves the longest handle.
func TestReadRequestSize(t *testing.T) {
	const run, env = "d794fcd9-6b2b-4975-8e97-8b478ef10a70", "7f1c2a52-8b0e-4c3e-9a51-3d2f6e8b9c10"
	for _, tc := range []struct {
		name, path, runID string
		refused           bool
	}{
		{"a short path", "a.txt", run, false},
		{"the longest path of plain bytes", strings.Repeat("a", proto.MaxPathBytes), run, false},
		{"a valid path whose escapes pass 8 KiB", strings.Repeat(`"`, 4090), run, true},
		{"just under 8 KiB on a Run", strings.Repeat(`"`, 4020), run, false},
		{"the same path through a preparation (longest handle reserved)", strings.Repeat(`"`, 4020), "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := &workspace.Spec{ID: "op", RunID: tc.runID, EnvironmentID: env,
				Read: proto.WorkspaceReadPayload{Path: tc.path, MaxBytes: 1}}
			err := checkReadRequestSize(spec)
			if got := err != nil; got != tc.refused {
				t.Fatalf("refused = %v (%v), want %v", got, err, tc.refused)
			}
			if err != nil && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "WS-02")) {
				t.Fatalf("the refusal %q is not ErrInvalid naming WS-02", err)
			}
		})
	}
}

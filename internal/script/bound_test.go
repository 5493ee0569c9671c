package script

import (
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// A bound step fails the reader of the named peer's frames when a placeholder is unbound, and
// leaves the writer, which has nothing to judge, alone.
func TestBoundIsJudgedByTheReader(t *testing.T) {
	st := &scenarios.Step{Index: 4, Kind: scenarios.StepBound, From: proto.Runtime, Names: []string{"gone", "kept"}}
	core := &Player{Self: proto.Core, B: scenarios.NewBindings()}
	core.B.Bind("kept", "x")
	if f := core.RequireBound(st); f == nil || f.Step != 4 || !strings.Contains(f.Message, "no frame of the runtime bound ${gone}") {
		t.Fatalf("failure %v", f)
	}
	core.B.Bind("gone", "not_pending")
	if f := core.RequireBound(st); f != nil {
		t.Fatalf("both bound, yet %v", f)
	}
	runtime := &Player{Self: proto.Runtime, B: scenarios.NewBindings()}
	if f := runtime.RequireBound(st); f != nil {
		t.Fatalf("the writer judged its own frames: %v", f)
	}
}

package workspace_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/workspace"
)

// TestWorkspace plays the files under testdata: every command is one event (or a fresh
// operation) and the expected output is the effects it produced and the state it left. Rewrite
// them with go test ./reference/core/execution/workspace -rewrite.
func TestWorkspace(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var s workspace.State
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			var ev workspace.Event
			switch td.Cmd {
			case "new":
				s = workspace.New(newSpec(t, td))
				return "state: " + s.String()
			case "begin":
				ev = workspace.Begin{}
			case "status":
				var st proto.PreparationStatusPayload
				td.ScanArgs(t, "state", &st.State)
				td.MaybeScanArgs(t, "handle", &st.Handle)
				td.MaybeScanArgs(t, "code", &st.ErrorCode)
				ev = workspace.Status{Status: &st}
			case "status-closed":
				ev = workspace.StatusClosed{Err: errors.New("the daemon connection closed")}
			case "result":
				ev = result(t, s.Spec().Kind, td.Input)
			case "invalid":
				ev = workspace.Result{Invalid: errors.New(strings.TrimSpace(td.Input))}
			case "closed":
				ev = workspace.ResultsClosed{Err: errors.New("the daemon connection closed")}
			case "timer":
				ev = workspace.TimerFired{}
			case "status-closed-clean":
				ev = workspace.StatusClosed{}
			case "stopping":
				ev = workspace.Stopping{}
			case "send-failed":
				ev = workspace.SendFailed{Err: errors.New("the send queue is full")}
			default:
				t.Fatalf("unknown command %s", td.Cmd)
			}
			next, effects := workspace.Step(s, ev)
			s = next
			return format(effects) + "state: " + s.String()
		})
	})
}

func newSpec(t *testing.T, td *datadriven.TestData) *workspace.Spec {
	spec := &workspace.Spec{ID: "op-1", EnvironmentID: "env-1", SessionID: "sess-1"}
	td.ScanArgs(t, "kind", &spec.Kind)
	td.MaybeScanArgs(t, "run", &spec.RunID)
	if spec.RunID == "" && spec.Kind != workspace.Write {
		spec.PrepareID = "prep-1"
		spec.Prepare = &proto.ExecutionPreparePayload{SessionID: "sess-1", Configuration: proto.PromptRequestPayload{
			AgentKind: "contract", WorkspaceReadOnly: true, StrictResume: true, ReleaseOnCompletion: true, AgentStateKey: "agents-api-sess-1"}}
	}
	switch spec.Kind {
	case workspace.Read:
		spec.Read.Path = "a.txt"
		td.MaybeScanArgs(t, "path", &spec.Read.Path)
		td.MaybeScanArgs(t, "op", &spec.Read.Operation)
		if spec.Read.Operation == proto.ReadDirectory {
			td.ScanArgs(t, "max", &spec.Read.MaxEntries)
		} else {
			td.ScanArgs(t, "max", &spec.Read.MaxBytes)
		}
	case workspace.Write:
		spec.Path = "a.txt"
		var content string
		var repeat int
		td.MaybeScanArgs(t, "content", &content)
		td.MaybeScanArgs(t, "repeat", &repeat)
		if repeat > 0 {
			content = strings.Repeat(content, repeat)
		}
		spec.Content = []byte(content)
	}
	return spec
}

func result(t *testing.T, kind, input string) workspace.Event {
	var p any
	switch kind {
	case workspace.Read:
		p = &proto.WorkspaceReadResultPayload{}
	case workspace.Write:
		p = &proto.WorkspaceWriteResultPayload{}
	default:
		p = &proto.WorkspaceExportResultPayload{}
	}
	if err := json.Unmarshal([]byte(input), p); err != nil {
		t.Fatalf("result: %v", err)
	}
	if err := p.(interface{ Validate() error }).Validate(); err != nil {
		return workspace.Result{Invalid: err}
	}
	return workspace.Result{Payload: p}
}

func format(effects []workspace.Effect) string {
	if len(effects) == 0 {
		return "no effects\n"
	}
	var b strings.Builder
	for _, e := range effects {
		switch e := e.(type) {
		case workspace.Send:
			payload := string(e.Envelope.Payload)
			if len(payload) > 160 {
				payload = payload[:160] + "…"
			}
			fmt.Fprintf(&b, "send %s %s %s", e.Envelope.Type, e.Envelope.ID, payload)
			if e.BestEffort {
				b.WriteString(" (best effort)")
			}
			if e.Budget > 0 {
				fmt.Fprintf(&b, " budget=%s", e.Budget)
			}
		case workspace.SubscribePreparation:
			fmt.Fprintf(&b, "subscribe preparation %s", e.ID)
		case workspace.AwaitResults:
			fmt.Fprintf(&b, "await %s %s", e.Type, e.ID)
		case workspace.Arm:
			fmt.Fprintf(&b, "arm %s", e.After)
		case workspace.Disarm:
			b.WriteString("disarm")
		case workspace.Note:
			fmt.Fprintf(&b, "note: %s", e.Text)
		case workspace.CloseAll:
			b.WriteString("close all")
		case workspace.CloseResults:
			b.WriteString("close results")
		case workspace.Finish:
			fmt.Fprintf(&b, "finish %s", e.Outcome.State)
			if e.Outcome.ErrorCode != "" {
				fmt.Fprintf(&b, " %s", e.Outcome.ErrorCode)
			}
			if e.Outcome.Reason != "" {
				fmt.Fprintf(&b, " reason=%s", e.Outcome.Reason)
			}
			if e.Outcome.Cleanup != "" {
				fmt.Fprintf(&b, " cleanup=%s", e.Outcome.Cleanup)
			}
			if e.Outcome.Detail != "" {
				fmt.Fprintf(&b, " (%s)", e.Outcome.Detail)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

package envprep_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/envprep"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// TestPreparation plays the files under testdata: `new` builds a preparation from one operation
// per input line, every other command is one event; the expected output is the effects and the
// state. Rewrite them with go test ./reference/core/execution/envprep -rewrite.
func TestPreparation(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var s envprep.State
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			if td.Cmd == "new" {
				ops, err := envprep.Build(preparation(t, td.Input))
				if err != nil {
					return "error: " + err.Error()
				}
				s = envprep.New(ops)
				return "state: " + state(s)
			}
			ev := event(t, td)
			next, effects, err := envprep.Step(s, ev)
			if err != nil {
				return "error: " + err.Error() + "\nstate: " + state(s)
			}
			checkNextChunk(t, td, s, ev, effects)
			s = next
			var out []string
			for _, e := range effects {
				out = append(out, effect(e))
			}
			if len(out) == 0 {
				out = append(out, "no effects")
			}
			return strings.Join(append(out, "state: "+state(s)), "\n")
		})
	})
}

// checkNextChunk holds NextChunk, which the host encodes ahead, to what Step does: a received
// with the expected offset sends exactly the predicted chunk, and no chunk is sent unpredicted.
func checkNextChunk(t *testing.T, td *datadriven.TestData, before envprep.State, ev envprep.Event, effects []envprep.Effect) {
	r, ok := ev.(envprep.Receipt)
	if !ok || r.Payload == nil || r.Payload.Outcome != proto.OutcomeReceived || r.Payload.Offset != before.Expect {
		return
	}
	predicted, has := before.NextChunk()
	var sent *envprep.Chunk
	for _, e := range effects {
		if s, ok := e.(envprep.Send); ok && s.Chunk != nil {
			sent = s.Chunk
		}
	}
	switch {
	case sent == nil && has:
		t.Errorf("%s: NextChunk predicted offset %d, Step sent no chunk", td.Pos, predicted.Offset)
	case sent != nil && !has:
		t.Errorf("%s: Step sent chunk at %d, NextChunk predicted none", td.Pos, sent.Offset)
	case sent != nil && (sent.TransferID != predicted.TransferID || sent.Offset != predicted.Offset || !bytes.Equal(sent.Data, predicted.Data)):
		t.Errorf("%s: Step sent %s@%d (%d bytes), NextChunk predicted %s@%d (%d bytes)", td.Pos,
			sent.TransferID, sent.Offset, len(sent.Data), predicted.TransferID, predicted.Offset, len(predicted.Data))
	}
}

const (
	envID  = "11111111-1111-4111-8111-111111111111"
	sessID = "22222222-2222-4222-8222-222222222222"
)

// preparation reads one operation a line: file PATH SIZE | skill NAME SIZE | plugin NAME SLOT SIZE
// | setup COMMAND | configure | finalize | json {...} (a raw store.PreparationOperation).
func preparation(t *testing.T, input string) *store.Preparation {
	p := &store.Preparation{EnvironmentID: envID, SessionID: sessID}
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		var op store.PreparationOperation
		size := func(s string) []byte {
			var n int
			if _, err := fmt.Sscan(s, &n); err != nil {
				t.Fatalf("size %q: %v", s, err)
			}
			return bytes.Repeat([]byte("a"), n)
		}
		switch f[0] {
		case "file":
			op = store.PreparationOperation{Action: proto.ActionFile, File: &proto.PreparedFile{Path: f[1]}, Content: size(f[2])}
		case "skill":
			op = store.PreparationOperation{Action: proto.ActionSkill, Skill: &proto.InlineCapability{Type: "inline", Name: f[1], Description: "d"}, Content: size(f[2])}
		case "plugin":
			var slot int
			fmt.Sscan(f[2], &slot)
			op = store.PreparationOperation{Action: proto.ActionPlugin, Slot: slot, Plugin: &proto.InlineCapability{Type: "inline", Name: f[1], Description: "d"}, Content: size(f[3])}
		case "setup":
			op = store.PreparationOperation{Action: proto.ActionInitialize, Initialization: &proto.RuntimeInitialization{Action: proto.InitSetup, Command: strings.Join(f[1:], " "), Cwd: "/workspace"}}
		case "configure":
			op = store.PreparationOperation{Action: proto.ActionInitialize, Initialization: &proto.RuntimeInitialization{Action: proto.InitConfigure, Env: map[string]string{"LANG": "C.UTF-8"}}}
		case "finalize":
			op = store.PreparationOperation{Action: proto.ActionFinalize, Sources: &proto.CapabilitySources{}}
		case "json":
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "json ")), &op); err != nil {
				t.Fatalf("operation %q: %v", line, err)
			}
		default:
			t.Fatalf("unknown operation %q", line)
		}
		p.Operations = append(p.Operations, op)
	}
	return p
}

// event: start | id ID | receipt OUTCOME [offset=N] [size=N] [code=C] [exit=N] | invalid |
// deadline | closed | send-failed.
func event(t *testing.T, td *datadriven.TestData) envprep.Event {
	first := ""
	if len(td.CmdArgs) > 0 {
		first = td.CmdArgs[0].Key
	}
	switch td.Cmd {
	case "start":
		return envprep.Start{}
	case "id":
		return envprep.TransferIDIssued{ID: first}
	case "receipt":
		p := &proto.RuntimePrepareResultPayload{Outcome: first}
		td.MaybeScanArgs(t, "offset", &p.Offset)
		td.MaybeScanArgs(t, "size", &p.SizeBytes)
		td.MaybeScanArgs(t, "code", &p.ErrorCode)
		td.MaybeScanArgs(t, "exit", &p.ExitCode)
		return envprep.Receipt{Payload: p}
	case "invalid":
		return envprep.Receipt{Invalid: errors.New("runtime_prepare_result.outcome: must be ready, received, completed, rejected, failed or unknown")}
	case "deadline":
		return envprep.Deadline{}
	case "closed":
		return envprep.Closed{Err: errors.New("the daemon connection closed")}
	case "send-failed":
		return envprep.SendFailed{Err: errors.New("the send queue is full")}
	}
	t.Fatalf("unknown command %q", td.Cmd)
	return nil
}

func effect(e envprep.Effect) string {
	switch e := e.(type) {
	case envprep.NewTransferID:
		return "new-transfer-id"
	case envprep.Await:
		return "await " + e.TransferID
	case envprep.Release:
		return "release " + e.TransferID
	case envprep.Arm:
		return "arm " + e.After.String()
	case envprep.Disarm:
		return "disarm"
	case envprep.Progress:
		return fmt.Sprintf("progress operation=%d", e.Operation)
	case envprep.Send:
		if c := e.Chunk; c != nil {
			return fmt.Sprintf("send chunk %s offset=%d len=%d", c.TransferID, c.Offset, len(c.Data))
		}
		var p proto.RuntimePreparePayload
		if err := json.Unmarshal(e.Envelope.Payload, &p); err != nil {
			return "send ?" + err.Error()
		}
		switch p.Step {
		case proto.StepChunk:
			return fmt.Sprintf("send chunk %s offset=%d len=%d", e.Envelope.ID, p.Offset, len(p.Data))
		case proto.StepBegin:
			return fmt.Sprintf("send begin %s action=%s size=%d", e.Envelope.ID, p.Action, p.SizeBytes)
		}
		return fmt.Sprintf("send %s %s", p.Step, e.Envelope.ID)
	case envprep.Finish:
		r := e.Result
		s := fmt.Sprintf("finish state=%s operation=%d transfer=%s outcome=%s", r.State, r.Operation, r.TransferID, r.Outcome)
		if r.ErrorCode != "" {
			s += " code=" + r.ErrorCode
		}
		if r.ExitCode != 0 {
			s += fmt.Sprintf(" exit=%d", r.ExitCode)
		}
		if r.Detail != "" {
			s += fmt.Sprintf(" detail=%q", r.Detail)
		}
		return s
	}
	return fmt.Sprintf("%T", e)
}

func state(s envprep.State) string {
	out := fmt.Sprintf("%s operation=%d/%d", s.Phase, s.Index, len(s.Ops))
	if s.Transfer != "" {
		out += " transfer=" + s.Transfer
	}
	if s.Phase == envprep.PhaseReceived || s.Phase == envprep.PhaseCompleted {
		out += fmt.Sprintf(" sent=%d expect=%d", s.Sent, s.Expect)
	}
	return out
}

package workspace

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/wirecheck/wirecheck/proto"
)

const (
	envID     = "11111111-1111-4111-8111-111111111111"
	sessionID = "22222222-2222-4222-8222-222222222222"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fakeHost is the admission side of the connection, set by the test's commands.
type fakeHost struct {
	targets map[string]Target // by "handle:h" / "run:r"
	blocked string
}

func (h *fakeHost) Target(handle, runID string) Target {
	key := "handle:" + handle
	if handle == "" {
		key = "run:" + runID
	}
	return h.targets[key]
}

func (h *fakeHost) WriteBlocked(environmentID, sessionID_ string) string {
	if h.blocked != "" {
		return h.blocked
	}
	if environmentID != envID || sessionID_ != sessionID {
		return "binding"
	}
	return ""
}

// uuidOf turns a short write name (w1) into the canonical UUID the wire needs, and short shows it
// back.
func uuidOf(name string) string {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "w"))
	if err != nil || !strings.HasPrefix(name, "w") {
		return name
	}
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
}

func short(s string) string {
	for i := 1; i < 10; i++ {
		s = strings.ReplaceAll(s, uuidOf(fmt.Sprint("w", i)), fmt.Sprint("w", i))
	}
	return s
}

// TestWorkspace plays testdata/*.txt against one Machine on a Fake workspace. Commands:
//
//	fs put=PATH [data=TEXT] [size=N] | mkdir=PATH | symlink=PATH | special=PATH | deny=PATH | fail=PATH
//	fs fail-writes | unsupported        (installer fails ambiguously | no FS at all)
//	file path=                          what the workspace holds at path
//	target handle=|run= [closed] [read-write] [env=]   register a target (env default E)
//	blocked [reason=]                   what holds the Environment against a write ("" frees it)
//	advance by=DURATION                 move the clock
//	frame type= id= [trace=]            a raw frame; the input is its payload
//	read id= handle=|run= path= [max_bytes=] [list max_entries=] [env=]
//	read-end id= [unconfirmed]          the native read ends (NativeRead on the fake, or unknown)
//	begin id= path= body=TEXT|size=N [declared=N] [sha=] [env=] [session=]
//	chunk id= offset= data=             data is text, or size=N bytes of 'x'
//	commit id=
//	export id= handle= [env=] | next id= offset= | cancel id=
//	drain id=                           next until the export ends; prints the archive
//
// Run with -rewrite to regenerate the expected output.
func TestWorkspace(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		fake := &Fake{}
		m := &Machine{FS: fake}
		host := &fakeHost{targets: map[string]Target{}}
		now := epoch
		lastData := map[string]int64{} // export ID → delivered bytes, for drain
		archive := map[string]*bytes.Buffer{}
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			arg := func(key, def string) string {
				for _, a := range td.CmdArgs {
					if a.Key == key && len(a.Vals) > 0 {
						return a.Vals[0]
					}
				}
				return def
			}
			num := func(key string, def int64) int64 {
				v, err := strconv.ParseInt(arg(key, fmt.Sprint(def)), 10, 64)
				if err != nil {
					td.Fatalf(t, "%s: %v", key, err)
				}
				return v
			}
			payload := func(key string) []byte {
				if n := num("size", -1); n >= 0 {
					return bytes.Repeat([]byte("x"), int(n))
				}
				return []byte(arg(key, ""))
			}
			send := func(typ, id string, p any) string {
				raw, err := json.Marshal(p)
				if err != nil {
					td.Fatalf(t, "%v", err)
				}
				env := proto.Envelope{Type: typ, ID: id, Payload: raw, Trace: arg("trace", "")}
				return render(m, m.Handle(env, now, host), archive)
			}
			switch td.Cmd {
			case "fs":
				switch {
				case td.HasArg("put"):
					fake.Put(arg("put", ""), payload("data"))
				case td.HasArg("mkdir"):
					fake.Mkdir(arg("mkdir", ""))
				case td.HasArg("symlink"):
					fake.Symlink(arg("symlink", ""))
				case td.HasArg("special"):
					fake.Special(arg("special", ""))
				case td.HasArg("deny"):
					fake.Deny(arg("deny", ""))
				case td.HasArg("fail"):
					fake.Fail(arg("fail", ""), ErrInjected)
				case td.HasArg("fail-writes"):
					fake.FailWrites = ErrInjected
				case td.HasArg("unsupported"):
					m.FS = nil
				}
				return "ok\n"
			case "file":
				data, ok := fake.File(arg("path", ""))
				if !ok {
					return "no file\n"
				}
				return fmt.Sprintf("%q\n", data)
			case "target":
				t := Target{Open: !td.HasArg("closed"), ReadOnly: !td.HasArg("read-write"), EnvironmentID: arg("env", envID)}
				if td.HasArg("run") {
					t.Owner, t.ReadOnly = "run:"+arg("run", ""), false
				} else {
					t.Owner = "handle:" + arg("handle", "")
				}
				host.targets[t.Owner] = t
				return "ok\n"
			case "blocked":
				host.blocked = arg("reason", "")
				return "ok\n"
			case "advance":
				d, err := time.ParseDuration(arg("by", "0s"))
				if err != nil {
					td.Fatalf(t, "%v", err)
				}
				now = now.Add(d)
				m.Expire(now)
				return short(m.String()) + "\n"
			case "frame":
				env := proto.Envelope{Type: arg("type", ""), ID: uuidOf(arg("id", "")), Payload: json.RawMessage(strings.TrimSpace(td.Input)), Trace: arg("trace", "")}
				if strings.TrimSpace(td.Input) == "" {
					env.Payload = nil
				}
				return render(m, m.Handle(env, now, host), archive)
			case "read":
				p := proto.WorkspaceReadPayload{Handle: arg("handle", ""), RunID: arg("run", ""), EnvironmentID: arg("env", envID),
					Path: arg("path", ""), MaxBytes: int(num("max_bytes", 0)), MaxEntries: int(num("max_entries", 0))}
				if td.HasArg("list") {
					p.Operation = proto.ReadDirectory
				}
				return send(proto.TypeWorkspaceRead, arg("id", ""), p)
			case "read-end":
				id := arg("id", "")
				var req proto.WorkspaceReadPayload
				for _, e := range pendingReads {
					if e.ID == id {
						req = e.Request
					}
				}
				res := Unconfirmed()
				if !td.HasArg("unconfirmed") {
					res = NativeRead(fake, req)
				}
				effects, err := m.ReadEnded(id, res)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return render(m, effects, archive)
			case "begin":
				body := payload("body")
				sum := sha256.Sum256(body)
				p := proto.WorkspaceWritePayload{Step: proto.StepBegin, EnvironmentID: arg("env", envID), SessionID: arg("session", sessionID),
					Path: arg("path", ""), SizeBytes: num("declared", int64(len(body))), SHA256: arg("sha", hex.EncodeToString(sum[:]))}
				return send(proto.TypeWorkspaceWrite, uuidOf(arg("id", "")), p)
			case "chunk":
				p := proto.WorkspaceWritePayload{Step: proto.StepChunk, Offset: num("offset", 0), Data: payload("data")}
				return send(proto.TypeWorkspaceWrite, uuidOf(arg("id", "")), p)
			case "commit":
				return send(proto.TypeWorkspaceWrite, uuidOf(arg("id", "")), proto.WorkspaceWritePayload{Step: proto.StepCommit})
			case "export":
				id := arg("id", "")
				archive[id] = &bytes.Buffer{}
				return send(proto.TypeWorkspaceExport, id, proto.WorkspaceExportPayload{Step: proto.ExportBegin, Handle: arg("handle", ""), EnvironmentID: arg("env", envID)})
			case "next":
				return send(proto.TypeWorkspaceExport, arg("id", ""), proto.WorkspaceExportPayload{Step: proto.ExportNext, Offset: num("offset", 0)})
			case "cancel":
				return send(proto.TypeWorkspaceExport, arg("id", ""), proto.WorkspaceExportPayload{Step: proto.ExportCancel})
			case "drain":
				id := arg("id", "")
				var b strings.Builder
				for chunks := 0; ; chunks++ {
					lastData[id] = int64(archive[id].Len())
					env := proto.Envelope{Type: proto.TypeWorkspaceExport, ID: id}
					env.Payload, _ = json.Marshal(proto.WorkspaceExportPayload{Step: proto.ExportNext, Offset: lastData[id]})
					effects := m.Handle(env, now, host)
					r := effects[0].(Reply).Payload.(*proto.WorkspaceExportResultPayload)
					if r.Outcome != proto.OutcomeChunk {
						fmt.Fprintf(&b, "%d more chunks; %s\n", chunks, effects[0])
						break
					}
					archive[id].Write(r.Data)
				}
				b.WriteString(listTar(archive[id].Bytes()))
				b.WriteString(m.String() + "\n")
				return b.String()
			default:
				td.Fatalf(t, "unknown command %q", td.Cmd)
			}
			return ""
		})
	})
}

// pendingReads remembers each StartRead, so read-end can run the request natively.
var pendingReads []StartRead

func render(m *Machine, effects []Effect, archive map[string]*bytes.Buffer) string {
	var b strings.Builder
	for _, e := range effects {
		if s, ok := e.(StartRead); ok {
			pendingReads = append(pendingReads, s)
		}
		if r, ok := e.(Reply); ok {
			if p, ok := r.Payload.(*proto.WorkspaceExportResultPayload); ok && p.Outcome == proto.OutcomeChunk && archive[r.ID] != nil {
				archive[r.ID].Write(p.Data)
			}
			if r.Trace != "" {
				b.WriteString("- " + short(e.String()) + " trace=" + r.Trace + "\n")
				continue
			}
		}
		b.WriteString("- " + short(e.String()) + "\n")
	}
	if len(effects) == 0 {
		b.WriteString("no reply\n")
	}
	b.WriteString(short(m.String()) + "\n")
	return b.String()
}

// listTar prints an archive's members with their bytes (data integrity by bytes, not receipts).
func listTar(data []byte) string {
	var b strings.Builder
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return b.String() + "bad archive: " + err.Error() + "\n"
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return b.String() + "bad archive: " + err.Error() + "\n"
		}
		if h.Typeflag == tar.TypeDir {
			fmt.Fprintf(&b, "  %s dir\n", h.Name)
			continue
		}
		if len(body) > 32 {
			fmt.Fprintf(&b, "  %s %d bytes sha=%x\n", h.Name, len(body), sha256.Sum256(body))
			continue
		}
		fmt.Fprintf(&b, "  %s %q\n", h.Name, body)
	}
	fmt.Fprintf(&b, "  (%d archive bytes)\n", len(data))
	return b.String()
}

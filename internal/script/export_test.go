package script

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// exportPair is a scripted Core and a scripted Runtime on one loopback WebSocket.
func exportPair(t *testing.T, seed string) (core, runtime *Player) {
	t.Helper()
	srv, accepted := acceptingServer(t)
	t.Cleanup(srv.Close)
	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	rtConn := NewConn(ws, NewRecorder(), From(proto.Core))
	coreConn := NewConn(<-accepted, NewRecorder(), From(proto.Runtime))
	t.Cleanup(func() { rtConn.Drop(); coreConn.Drop() })
	core = &Player{Self: proto.Core, Conn: coreConn, B: scenarios.NewBindings(), Rec: coreConn.rec, Timeout: 2 * time.Second, Seed: seed}
	runtime = &Player{Self: proto.Runtime, Conn: rtConn, B: scenarios.NewBindings(), Rec: rtConn.rec, Timeout: 2 * time.Second, Seed: seed}
	return core, runtime
}

func pullStep(archive scenarios.Value) *scenarios.Step {
	return &scenarios.Step{Kind: scenarios.StepExportPull, Index: 1, From: proto.Runtime, Pos: scenarios.Pos{File: "x.yaml", Line: 3},
		Export: &scenarios.ExportPull{ID: "x1", Archive: archive}}
}

// The scripted Core pulls an export to its end however the Runtime cuts it: every seed cuts the
// archive differently (the self-check's scripted Runtime), and the archive read back is the one
// served, its files compared by $tar or bound whole.
func TestPullExportTakesAnyChunking(t *testing.T) {
	big := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("z", 70_000)))
	files := map[string]scenarios.Value{"a.txt": "aGVsbG8=", "d/big.bin": big}
	for i := range 6 {
		t.Run(fmt.Sprint("seed ", i), func(t *testing.T) {
			core, rt := exportPair(t, fmt.Sprint(i))
			st := pullStep(&scenarios.Matcher{Tar: files})
			served := make(chan error, 1)
			go func() {
				f, err := rt.ServeExport(context.Background(), st)
				if f != nil {
					err = fmt.Errorf("%s", f.Message)
				}
				served <- err
			}()
			if f, err := core.PullExport(context.Background(), st); f != nil || err != nil {
				t.Fatalf("pull: %v %v", f, err)
			}
			if err := <-served; err != nil {
				t.Fatalf("serve: %v", err)
			}
		})
	}
	t.Run("bound whole", func(t *testing.T) {
		core, rt := exportPair(t, "bound")
		go func() { _, _ = rt.ServeExport(context.Background(), pullStep(nil)) }()
		if f, err := core.PullExport(context.Background(), pullStep("${archive}")); f != nil || err != nil {
			t.Fatalf("pull: %v %v", f, err)
		}
		got, _ := base64.StdEncoding.DecodeString(core.B.String("archive"))
		if len(got) != len(scenarios.TarArchive(nil)) {
			t.Errorf("${archive} is %d bytes, want the empty archive served", len(got))
		}
	})
}

// A Runtime that breaks the flow fails the pull at the offset it was at: a completed that does not
// carry the bytes delivered (WS-28.4), a chunk that repeats an offset (WS-28.2), a chunk without
// data (WS-27.5), an archive whose file lacks its bytes (WS-28.5).
func TestPullExportFailsABrokenRuntime(t *testing.T) {
	hello := `{"type":"workspace_export_result","id":"x1","payload":{"outcome":"chunk","offset":0,"data":"aGVsbG8="}}`
	for _, c := range []struct {
		name    string
		archive scenarios.Value
		frames  []string // after the first chunk, each after a next
		want    string
	}{
		{"completed at offset 0", nil, []string{`{"type":"workspace_export_result","id":"x1","payload":{"outcome":"completed","offset":0}}`},
			`pulling the export at offset 5: runtime frame differs: payload: want one of`},
		{"a chunk at an offset delivered before", nil, []string{hello}, `pulling the export at offset 5`},
		{"a chunk without data", nil, []string{`{"type":"workspace_export_result","id":"x1","payload":{"outcome":"chunk","offset":5}}`},
			`workspace_export_result.data: must carry 1 to 65536 bytes on chunk`},
		{"an archive that is not a tar", &scenarios.Matcher{Tar: map[string]scenarios.Value{}}, []string{`{"type":"workspace_export_result","id":"x1","payload":{"outcome":"completed","offset":5}}`},
			`the export's archive (5 bytes) differs: archive: not a tar archive`},
	} {
		t.Run(c.name, func(t *testing.T) {
			core, rt := exportPair(t, "0")
			go func() {
				ctx := context.Background()
				_ = rt.Conn.Write(ctx, []byte(hello))
				for _, f := range c.frames {
					bounded, cancel := Within(ctx, 2*time.Second)
					_, err := rt.Conn.Next(bounded)
					cancel()
					if err != nil {
						return
					}
					_ = rt.Conn.Write(ctx, []byte(f))
				}
			}()
			f, err := core.PullExport(context.Background(), pullStep(c.archive))
			if err != nil || f == nil || !strings.Contains(f.Message, c.want) {
				t.Fatalf("pull ended with %v, %v; want a failure saying %q", f, err, c.want)
			}
			if f.Pos.Line != 3 || f.Step != 1 {
				t.Errorf("the failure points at step %d, %s; want the export_pull step", f.Step, f.Pos)
			}
		})
	}
}

// Chunk sizes cover the archive exactly, each within the 1 byte to 64 KiB the spec allows, and a
// seed always cuts the same way.
func TestChunkSizes(t *testing.T) {
	for _, total := range []int{1, 2, 1024, 65536, 65537, 300_000} {
		sizes := chunkSizes(total, "s")
		sum := 0
		for _, n := range sizes {
			if n < 1 || n > proto.TransferChunkBytes {
				t.Fatalf("total %d: a chunk of %d bytes", total, n)
			}
			sum += n
		}
		if sum != total || fmt.Sprint(sizes) != fmt.Sprint(chunkSizes(total, "s")) {
			t.Fatalf("total %d: sizes %v", total, sizes)
		}
	}
	if len(chunkSizes(0, "s")) != 0 {
		t.Error("no bytes, no chunk")
	}
}

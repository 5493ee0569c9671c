package fault_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/proto"
)

// BenchmarkRelayThroughput sends b.N delta frames one way (Runtime → Core) over loopback, straight
// to Core ("direct") and through a relay whose schedule is armed but addresses other types
// ("relay"; its filter forwards a delta without decoding it), and reports frames/s. Run side by
// side: go test -run '^$' -bench RelayThroughput -count=5 ./fault/
func BenchmarkRelayThroughput(b *testing.B) {
	payload := proto.MustEnvelope(proto.TypeDelta, "run-0123456789abcdef", &proto.DeltaPayload{
		ItemID: "msg_0001", Delta: "The quick brown fox jumps over the lazy dog; ", Sequence: 4242})
	raw, err := payload.Encode()
	if err != nil {
		b.Fatal(err)
	}
	armed := &fault.Schedule{Seed: 1, Rules: []fault.Rule{
		{Name: "lose-done", Match: fault.Match{Direction: fault.RuntimeToCore, Type: proto.TypeDone, Nth: 1}, Action: fault.Drop()},
		{Name: "late-written", Match: fault.Match{Type: proto.TypePromptSteerAck, Payload: map[string]any{"phase": "written"}}, Action: fault.Delay(31 * time.Second)},
	}}
	b.Run("direct", func(b *testing.B) { throughput(b, raw, nil) })
	b.Run("relay", func(b *testing.B) { throughput(b, raw, armed) })
	// The worst case: a rule addresses deltas, so every frame is decoded and matched.
	matching := &fault.Schedule{Seed: 1, Rules: []fault.Rule{
		{Name: "lose-last-delta", Match: fault.Match{Type: proto.TypeDelta, Payload: map[string]any{"sequence": -1}}, Action: fault.Drop()},
	}}
	b.Run("relay-matching", func(b *testing.B) { throughput(b, raw, matching) })
}

// throughput measures b.N frames from a dialling client to an accepting server; with a schedule,
// through a relay that runs it.
func throughput(b *testing.B, frame []byte, sched *fault.Schedule) {
	received := make(chan int, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ws.SetReadLimit(proto.MaxFrameBytes)
		n := 0
		for {
			if _, _, err := ws.Read(context.Background()); err != nil {
				break
			}
			n++
		}
		received <- n
	}))
	defer srv.Close()
	wsURL := "ws" + srv.URL[len("http"):] + proto.RouteWebSocket
	if sched != nil {
		relay, err := fault.New(srv.URL+proto.APIPrefix, sched, fault.Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		base, err := relay.Start(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		defer relay.Close()
		wsURL = "ws" + base[len("http"):len(base)-len(proto.APIPrefix)] + proto.RouteWebSocket
	}
	ctx := context.Background()
	ws, _, err := websocket.Dial(ctx, wsURL, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.CloseNow()

	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := ws.Write(ctx, websocket.MessageText, frame); err != nil {
			b.Fatal(err)
		}
	}
	// The close arrives after every frame: the receiver has read them all once it sees it.
	if err := ws.Close(websocket.StatusNormalClosure, "done"); err != nil {
		b.Fatal(err)
	}
	n := <-received
	elapsed := time.Since(start)
	b.StopTimer()
	if n != b.N {
		b.Fatalf("the receiver read %d frames of %d", n, b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "frames/s")
}

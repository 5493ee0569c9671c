package fault_test

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/coder/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/internal/script"
	"github.com/wirecheck/wirecheck/proto"
)

// Every action, observed on the wire by a raw Runtime and a raw Core on either side of the relay.
var _ = Describe("actions on the wire", Label("actions"), func() {
	var r *rig
	AfterEach(func() { r.close() })

	It("drops the 2nd preparation_status: Core never sees it", Label("drop"), func() {
		r = newRig(1, fault.Rule{Name: "lose-ready",
			Match:  fault.Match{Direction: fault.RuntimeToCore, Type: proto.TypePreparationStatus, Nth: 2},
			Action: fault.Drop()})
		rt, core := r.connect()
		s1, s2, s3 := status("h", 1, proto.StatePreparing), status("h", 2, proto.StateReady), status("h", 3, proto.StateStarting)
		send(rt, s1, s2, s3)
		expectFrames(core, s1, s3) // order is kept, so s3 arriving next proves s2 is gone
		ev := r.waitEvents(1)
		Expect(ev).To(HaveLen(1))
		Expect(ev[0]).To(MatchFields("lose-ready", fault.ActDrop, fault.RuntimeToCore, proto.TypePreparationStatus, "prepare"))
		// The other direction is untouched.
		cancel := frame(proto.TypePromptCancel, "run", nil)
		send(core, cancel)
		expectFrames(rt, cancel)
	})

	It("delays a frame on the virtual clock: released only after Advance, overtaken meanwhile", Label("delay"), func() {
		r = newRig(1, fault.Rule{Name: "late", Match: fault.Match{Type: proto.TypeDelta, Nth: 2}, Action: fault.Delay(31 * time.Second)})
		rt, core := r.connect()
		d1, d2, d3, d4 := delta("run", 1), delta("run", 2), delta("run", 3), delta("run", 4)
		send(rt, d1, d2, d3)
		expectFrames(core, d1, d3)
		r.waitEvents(1)
		// The delay's timer is armed in a goroutine of its own: the clock moves once it waits.
		Eventually(r.fake.Pending).WithTimeout(within).Should(Equal(1))
		r.fake.Advance(30 * time.Second) // not yet: 30 s < 31 s
		send(rt, d4)
		expectFrames(core, d4)
		r.fake.Advance(time.Second)
		expectFrames(core, d2)
		ev := r.waitEvents(2)
		Expect(ev[1].Detail).To(Equal("released after 31s"))
		Expect(ev[1].At).To(Equal(ev[0].At.Add(31 * time.Second)))
	})

	It("loses a delayed frame whose connection ends first, and says so", Label("delay"), func() {
		r = newRig(1, fault.Rule{Name: "late", Match: fault.Match{Type: proto.TypeDone}, Action: fault.Delay(time.Minute)})
		rt, core := r.connect()
		send(rt, frame(proto.TypeDone, "run", &proto.DonePayload{}))
		r.waitEvents(1)
		rt.Close(proto.CloseNormal, "client closing")
		Expect(expectClosed(core).Code).To(Equal(proto.CloseNormal))
		ev := r.waitEvents(2)
		Expect(ev[1].Detail).To(Equal("lost: the connection ended before its release"))
		Expect(ev[1].Rule).To(Equal("late"))
	})

	It("stalls a direction: later frames wait behind the held one", Label("delay"), func() {
		r = newRig(1, fault.Rule{Name: "stall", Match: fault.Match{Type: proto.TypeDelta, Nth: 1}, Action: fault.Stall(5 * time.Second)})
		rt, core := r.connect()
		d1, d2 := delta("run", 1), delta("run", 2)
		send(rt, d1, d2)
		r.waitEvents(1)
		cancel := frame(proto.TypePromptCancel, "run", nil)
		send(core, cancel)
		expectFrames(rt, cancel) // the other direction flows
		_, err := nextWithin(core, 50*time.Millisecond)
		Expect(err).To(MatchError(script.ErrTimeout), "nothing may pass the stalled frame")
		Eventually(r.fake.Pending).WithTimeout(within).Should(Equal(1)) // the stall's timer is armed
		r.fake.Advance(5 * time.Second)
		expectFrames(core, d1, d2)
	})

	It("duplicates a frame", Label("duplicate"), func() {
		r = newRig(1, fault.Rule{Name: "twice", Match: fault.Match{Direction: fault.CoreToRuntime, Type: proto.TypePromptCancel},
			Action: fault.Duplicate(2)})
		rt, core := r.connect()
		cancel := frame(proto.TypePromptCancel, "run", &proto.PromptCancelPayload{DeliveryID: "c1"})
		other := frame(proto.TypeExecutionRelease, "prepare", &proto.ExecutionReleasePayload{Handle: "h"})
		send(core, cancel, other)
		expectFrames(rt, cancel, cancel, cancel, other)
	})

	It("reorders a frame with the next one of its direction", Label("reorder"), func() {
		r = newRig(1, fault.Rule{Name: "swap", Match: fault.Match{Type: proto.TypeDelta, Nth: 1}, Action: fault.Reorder()})
		rt, core := r.connect()
		d1, d2, d3 := delta("run", 1), delta("run", 2), delta("run", 3)
		send(rt, d1, d2, d3)
		expectFrames(core, d2, d1, d3)
		ev := r.waitEvents(2)
		Expect(ev[1].Detail).To(Equal("released after the next frame"))
	})

	It("reorders every frame pairwise", Label("reorder"), func() {
		r = newRig(1, fault.Rule{Name: "swap-all", Match: fault.Match{Type: proto.TypeDelta}, Action: fault.Reorder()})
		rt, core := r.connect()
		d1, d2, d3, d4 := delta("run", 1), delta("run", 2), delta("run", 3), delta("run", 4)
		send(rt, d1, d2, d3, d4)
		expectFrames(core, d2, d1, d4, d3)
	})

	Describe("corrupt", Label("corrupt"), func() {
		It("invalid_json: the receiver gets bytes that are not JSON", func() {
			r = newRig(1, fault.Rule{Name: "garble", Match: fault.Match{Type: proto.TypeDone}, Action: fault.Corrupt(fault.InvalidJSON)})
			rt, core := r.connect()
			send(rt, frame(proto.TypeDone, "run", &proto.DonePayload{Content: "x"}))
			got := next(core)
			Expect(json.Valid(got)).To(BeFalse(), "%s", got)
			_, err := proto.DecodeEnvelope(got)
			Expect(err).To(MatchError(ContainSubstring("malformed JSON")))
		})

		It("oversize: the receiver's 4 MiB limit closes its transport with 1009", func() {
			r = newRig(1, fault.Rule{Name: "huge", Match: fault.Match{Type: proto.TypeDelta}, Action: fault.Corrupt(fault.Oversize)})
			rt, core := r.connect()
			send(rt, delta("run", 1))
			// script.Conn reads with the protocol's limit, as every peer does: the frame is refused
			// and Core closes with 1009.
			ce := expectClosed(core)
			Expect(ce.Err).To(MatchError(websocket.ErrMessageTooBig))
			// The relay passes Core's close on to the Runtime with the same code.
			Expect(expectClosed(rt).Code).To(Equal(int(websocket.StatusMessageTooBig)))
			ev := r.waitEvents(1)
			Expect(ev[0].Detail).To(ContainSubstring("to 4194305 bytes"))
		})

		It("invalid_frame: a well-formed envelope that fails validation (a required member removed)", func() {
			r = newRig(1, fault.Rule{Name: "broken", Match: fault.Match{Type: proto.TypePreparationStatus}, Action: fault.Corrupt(fault.InvalidFrame)})
			rt, core := r.connect()
			send(rt, status("h", 1, proto.StatePreparing))
			got := next(core)
			env, err := proto.DecodeEnvelope(got)
			Expect(err).NotTo(HaveOccurred())
			Expect(env.Type).To(Equal(proto.TypePreparationStatus))
			_, err = proto.ParseFrame(got)
			Expect(err).To(HaveOccurred())
			ev := r.waitEvents(1)
			Expect(ev[0].Detail).To(HavePrefix("invalid_frame: payload."))
		})

		It("invalid_frame on a bodyless prompt_cancel breaks its id rule instead", func() {
			r = newRig(1, fault.Rule{Name: "broken", Match: fault.Match{Type: proto.TypePromptCancel}, Action: fault.Corrupt(fault.InvalidFrame)})
			rt, core := r.connect()
			send(core, frame(proto.TypePromptCancel, "run", nil))
			got := next(rt)
			_, err := proto.ParseFrame(got)
			Expect(err).To(MatchError(ContainSubstring("id")))
		})
	})

	It("cuts the connection right after forwarding the frame", Label("cut"), func() {
		r = newRig(1, fault.Rule{Name: "cut-after-started", Match: fault.Match{Type: proto.TypePreparationStatus, Payload: map[string]any{"state": "started"}},
			Action: fault.Cut()})
		rt, core := r.connect()
		started := status("h", 4, proto.StateStarted)
		send(rt, status("h", 3, proto.StateStarting), started)
		expectFrames(core, status("h", 3, proto.StateStarting), started)
		Expect(expectClosed(core).Code).To(Equal(-1), "Core sees a drop, not a close frame")
		Expect(expectClosed(rt).Code).To(Equal(-1), "the Runtime sees a drop, not a close frame")
	})

	It("refuses the next reconnects with 503, then lets one through", Label("refuse_reconnect"), func() {
		r = newRig(1, fault.Rule{Name: "busy", Match: fault.Match{Type: proto.TypeHeartbeat, Nth: 1}, Action: fault.RefuseReconnect(2, 0)})
		rt, core := r.connect()
		hb := frame(proto.TypeHeartbeat, "", &proto.HeartbeatPayload{TS: 1710000000})
		send(rt, hb)
		expectFrames(core, hb)
		r.waitEvents(1)
		core.Drop()
		expectClosed(rt)
		for attempt := 1; attempt <= 2; attempt++ {
			_, err := dial(r.wsURL)
			var refused *dialError
			Expect(err).To(BeAssignableToTypeOf(refused))
			refused = err.(*dialError)
			Expect(refused.status).To(Equal(http.StatusServiceUnavailable))
			var body proto.HTTPError
			Expect(json.Unmarshal(refused.body, &body)).To(Succeed())
			Expect(body.Error).To(Equal(proto.HTTPInternal))
			Expect(body.Detail).To(ContainSubstring("busy"))
		}
		rt2, core2 := r.connect()
		send(rt2, hb)
		expectFrames(core2, hb)
		ev := r.relay.Events()
		Expect(ev).To(HaveLen(3))
		Expect(ev[1].Detail).To(Equal("upgrade refused with 503 internal (1 of 2)"))
		Expect(ev[2].Detail).To(Equal("upgrade refused with 503 internal (2 of 2)"))
	})

	It("refuses at once when armed without a match (a scenario's fault step)", Label("refuse_reconnect"), func() {
		r = newRig(1)
		rt, core := r.connect()
		Expect(r.relay.Arm(fault.Rule{Name: "down", Action: fault.RefuseReconnect(1, http.StatusUnauthorized)})).To(Succeed())
		core.Close(proto.CloseNormal, "bye")
		Expect(expectClosed(rt).Code).To(Equal(proto.CloseNormal))
		_, err := dial(r.wsURL)
		Expect(err).To(MatchError(ContainSubstring(`401 {"error":"bad_credential"`)))
		r.connect()
	})

	It("closes both sockets with 4001 after a delay on the virtual clock", Label("close"), func() {
		r = newRig(1, fault.Rule{Name: "retire", Match: fault.Match{Type: proto.TypeHeartbeat, Nth: 1},
			Action: fault.CloseAfter(proto.CloseRuntimeDeleted, "runtime retired", 2*time.Second)})
		rt, core := r.connect()
		hb := frame(proto.TypeHeartbeat, "", &proto.HeartbeatPayload{TS: 1710000000})
		send(rt, hb)
		expectFrames(core, hb)
		r.waitEvents(1)
		Eventually(r.fake.Pending).WithTimeout(within).Should(Equal(1))
		r.fake.Advance(2 * time.Second)
		ce := expectClosed(rt)
		Expect(ce.Code).To(Equal(proto.CloseRuntimeDeleted))
		Expect(ce.Reason).To(Equal("runtime retired"))
		Expect(expectClosed(core).Code).To(Equal(proto.CloseRuntimeDeleted))
	})

	It("goes half-open: one direction stops, both sockets stay open", Label("close", "half_open"), func() {
		r = newRig(1, fault.Rule{Name: "silent-runtime", Match: fault.Match{Type: proto.TypeHeartbeat, Nth: 1},
			Action: fault.HalfOpen(fault.RuntimeToCore, 0)})
		rt, core := r.connect()
		hb := frame(proto.TypeHeartbeat, "", &proto.HeartbeatPayload{TS: 1710000000})
		send(rt, hb)
		expectFrames(core, hb)
		r.waitEvents(2)
		// The Runtime keeps writing into a socket that is open; nothing reaches Core.
		send(rt, hb, delta("run", 1))
		_, err := nextWithin(core, 50*time.Millisecond)
		Expect(err).To(MatchError(script.ErrTimeout), "nothing reaches Core, and its socket stays open")
		// Core's frames still reach the Runtime.
		cancel := frame(proto.TypePromptCancel, "run", nil)
		send(core, cancel)
		expectFrames(rt, cancel)
		Expect(rt.ClosedErr()).To(BeNil())
		Expect(core.ClosedErr()).To(BeNil())
		// Core gives up (its liveness timeout): the close is passed on, since Core→Runtime flows.
		core.Close(proto.CloseGoingAway, "liveness")
		Expect(expectClosed(rt).Code).To(Equal(proto.CloseGoingAway))
	})

	It("matches an id bound at run time, and nothing before it is bound", Label("bind"), func() {
		r = newRig(1, fault.Rule{Name: "lose-run-output", Match: fault.Match{Type: proto.TypeDelta, IDFrom: "run"}, Action: fault.Drop()})
		rt, core := r.connect()
		a1, b1, a2 := delta("run-a", 1), delta("run-b", 1), delta("run-a", 2)
		send(rt, a1)
		expectFrames(core, a1)
		r.relay.Bind("run", "run-a")
		send(rt, b1, a2, delta("run-b", 2))
		expectFrames(core, b1, delta("run-b", 2))
	})

	It("matches a payload member: the written receipt, not the accepted one", Label("payload"), func() {
		r = newRig(1, fault.Rule{Name: "lose-written", Match: fault.Match{Type: proto.TypePromptSteerAck, Payload: map[string]any{"phase": "written"}},
			Action: fault.Drop()})
		rt, core := r.connect()
		written := frame(proto.TypePromptSteerAck, "run", map[string]any{"input_id": "i1", "phase": "written"})
		accepted := frame(proto.TypePromptSteerAck, "run", map[string]any{"input_id": "i1", "phase": "accepted"})
		send(rt, written, accepted)
		expectFrames(core, accepted)
	})

	It("passes a frame that is not an envelope, unless a rule targets undecodable frames", Label("undecodable"), func() {
		r = newRig(1, fault.Rule{Name: "any-delta", Match: fault.Match{Type: proto.TypeDelta}, Action: fault.Drop()})
		rt, core := r.connect()
		garbage := []byte(`{"type": "delta", oops`)
		send(rt, garbage)
		expectFrames(core, garbage)
		Expect(r.relay.Arm(fault.Rule{Name: "eat-garbage", Match: fault.Match{Undecodable: true}, Action: fault.Drop()})).To(Succeed())
		send(rt, garbage, status("h", 1, proto.StatePreparing))
		expectFrames(core, status("h", 1, proto.StatePreparing))
		ev := r.waitEvents(1)
		Expect(ev[0].Type).To(BeEmpty())
		Expect(ev[0].String()).To(ContainSubstring("(not an envelope)"))
	})

	It("passes a peer's close code and a drop on to the other peer", Label("transparent"), func() {
		r = newRig(1)
		rt, core := r.connect()
		rt.Close(proto.CloseNormal, "client closing")
		ce := expectClosed(core)
		Expect(ce.Code).To(Equal(proto.CloseNormal))
		Expect(ce.Reason).To(Equal("client closing"))
		rt2, core2 := r.connect()
		core2.Drop()
		Expect(expectClosed(rt2).Code).To(Equal(-1))
	})
})

// MatchFields checks the envelope-level fields of an event.
func MatchFields(rule string, act fault.ActionKind, dir fault.Direction, typ, id string) OmegaMatcher {
	return And(
		WithTransform(func(e fault.Event) string { return e.Rule }, Equal(rule)),
		WithTransform(func(e fault.Event) fault.ActionKind { return e.Action }, Equal(act)),
		WithTransform(func(e fault.Event) fault.Direction { return e.Direction }, Equal(dir)),
		WithTransform(func(e fault.Event) string { return e.Type }, Equal(typ)),
		WithTransform(func(e fault.Event) string { return e.ID }, Equal(id)),
	)
}

package fault_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/proto"
)

var _ = Describe("rules armed at run time", Label("arm"), func() {
	var r *rig
	AfterEach(func() { r.close() })

	It("count their matches from when they are armed, and stop when disarmed", func() {
		r = newRig(1)
		rt, core := r.connect()
		d1, d2, d3, d4 := delta("run", 1), delta("run", 2), delta("run", 3), delta("run", 4)
		send(rt, d1)
		expectFrames(core, d1)
		Expect(r.relay.Arm(fault.Rule{Name: "second-from-now", Match: fault.Match{Type: proto.TypeDelta, Nth: 2}, Action: fault.Drop()})).To(Succeed())
		Expect(r.relay.Arm(fault.Rule{Name: "second-from-now", Action: fault.Cut()})).To(MatchError(ContainSubstring("already armed")))
		Expect(r.relay.Arm(fault.Rule{Name: "bad", Action: fault.Delay(0)})).To(MatchError(ContainSubstring("delay.for: must be a positive duration")))
		send(rt, d2, d3)
		expectFrames(core, d2) // d3 is the 2nd delta since arming
		Expect(r.relay.Arm(fault.Rule{Name: "all-deltas", Match: fault.Match{Type: proto.TypeDelta}, Action: fault.Drop()})).To(Succeed())
		Expect(r.relay.Disarm("all-deltas")).To(BeTrue())
		Expect(r.relay.Disarm("all-deltas")).To(BeFalse())
		send(rt, d4)
		expectFrames(core, d4)
	})

	It("keep their counts across reconnects", func() {
		r = newRig(1, fault.Rule{Name: "third-status", Match: fault.Match{Type: proto.TypePreparationStatus, Nth: 3}, Action: fault.Drop()})
		rt, core := r.connect()
		s1, s2, s3, s4 := status("h", 1, proto.StatePreparing), status("h", 2, proto.StateReady), status("h2", 1, proto.StatePreparing), status("h2", 2, proto.StateReady)
		send(rt, s1, s2)
		expectFrames(core, s1, s2)
		rt.Close(proto.CloseNormal, "client closing")
		expectClosed(core)
		rt, core = r.connect()
		send(rt, s3, s4)
		expectFrames(core, s4)
		Expect(r.waitEvents(1)[0].Conn).To(Equal(2))
	})

	It("match a type written with JSON escapes, which the relay's filter cannot read verbatim", func() {
		r = newRig(1, fault.Rule{Name: "lose-done", Match: fault.Match{Type: proto.TypeDone}, Action: fault.Drop()})
		rt, core := r.connect()
		escaped := []byte(`{"type":"\u0064one","id":"run","payload":{"content":""}}`)
		send(rt, escaped, delta("run", 1))
		expectFrames(core, delta("run", 1))
	})
})

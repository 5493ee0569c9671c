package execution_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// A Run's frames and its decisions' acks come on one connection of ordered envelopes but reach the
// runner on two streams. These specs route both before the runner can take either (it is held in
// the Send of the decision), so a runner that does not put them back in wire order fails every
// time, not one time in two.
var _ = Describe("wire order across a Turn's streams", Label("execution"), func() {
	var v *env
	BeforeEach(func() {
		v = newEnv()
		v.conn.setCapabilities(hb("preparation", "environment_none", "permissions"))
	})

	// answerHeld answers the permission request p1 while the decision's Send is held, and returns
	// the decision sent and a release that lets the runner go on.
	answerHeld := func(t *store.Turn) (proto.PermissionDecisionPayload, func()) {
		v.conn.stream(v.conn.runs, t.RunID).push(proto.TypePermissionRequest, t.RunID,
			&proto.PermissionRequestPayload{RequestID: "p1", Tool: "shell", Title: "ls"})
		Eventually(func() int { got, _ := v.st.Turn(t.ID); return len(got.Interactions) }).Should(Equal(1))
		release := v.conn.hold(proto.TypePermissionDecision)
		answered := make(chan error, 1)
		go func() {
			_, err := v.e.Answer(t.ID, "p1", "k1", json.RawMessage(`{"approved":true}`))
			answered <- err
		}()
		dec := v.next()
		Expect(dec.Type).To(Equal(proto.TypePermissionDecision))
		var p proto.PermissionDecisionPayload
		Expect(json.Unmarshal(dec.Payload, &p)).To(Succeed())
		return p, func() {
			release()
			Eventually(answered).Should(Receive(BeNil()))
		}
	}

	// IA-14.1: an ack arriving within 15 s settles the decision; it came before done, so it
	// settled it before the Turn ended.
	It("settles a decision by the ack that came just before done, though both wait when the runner looks", func() {
		t := v.start()
		v.toStarted(t)
		p, release := answerHeld(t)
		v.conn.stream(v.conn.acks, p.DeliveryID).push(proto.TypeInteractionDecisionAck, "p1",
			&proto.InteractionDecisionAckPayload{DeliveryID: p.DeliveryID, Applied: true})
		v.conn.stream(v.conn.runs, t.RunID).push(proto.TypeDone, t.RunID, &proto.DonePayload{Content: "ok"})
		release()

		Expect(v.outcome(t.ID).Status).To(Equal(proto.TurnCompleted))
		got, err := v.st.Turn(t.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Interactions[0].State).To(Equal(store.InteractionApplied), "recorded %s %s", got.Interactions[0].State, got.Interactions[0].Code)
		Expect(journalLines(v.st, t.ID)).To(ContainElements("received interaction_decision_ack", "received done"))
		Expect(indexOf(journalLines(v.st, t.ID), "received interaction_decision_ack")).To(BeNumerically("<", indexOf(journalLines(v.st, t.ID), "received done")),
			"the journal keeps the wire order")
	})

	// The other way round, a Run frame that came before the ack is still taken first: a
	// permission_cancel ahead of the ack detaches the request, and the ack behind it settles
	// nothing (permission-cancel-detaches).
	It("takes a Run frame that came before the ack first", func() {
		t := v.start()
		v.toStarted(t)
		p, release := answerHeld(t)
		v.conn.stream(v.conn.runs, t.RunID).push(proto.TypePermissionCancel, "p1", nil)
		v.conn.stream(v.conn.acks, p.DeliveryID).push(proto.TypeInteractionDecisionAck, "p1",
			&proto.InteractionDecisionAckPayload{DeliveryID: p.DeliveryID, Applied: true})
		release()

		Eventually(func() string { got, _ := v.st.Turn(t.ID); return got.Interactions[0].State }).Should(Equal(store.InteractionDetached))
		Expect(v.e.Quiesce(ctx())).To(Succeed())
		got, _ := v.st.Turn(t.ID)
		Expect(got.Interactions[0].State).To(Equal(store.InteractionDetached))
		v.conn.stream(v.conn.runs, t.RunID).push(proto.TypeDone, t.RunID, &proto.DonePayload{Content: "ok"})
		Expect(v.outcome(t.ID).Status).To(Equal(proto.TurnCompleted))
	})
})

func indexOf(lines []string, s string) int {
	for i, l := range lines {
		if l == s {
			return i
		}
	}
	return -1
}

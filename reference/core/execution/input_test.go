package execution_test

import (
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

var _ = Describe("active input", Label("execution", "input"), func() {
	var v *env
	var t *store.Turn
	BeforeEach(func() {
		v = newEnv()
		v.conn.setCapabilities(hb("preparation", "environment_none", "durable_input_receipts"))
		t = v.start()
		v.toStarted(t)
	})

	inputs := func() []store.Input {
		got, err := v.st.Turn(t.ID)
		Expect(err).NotTo(HaveOccurred())
		return got.Inputs
	}

	It("fails the Turn input_outcome_unknown 30 s after delivery without written, on the injected clock", func() {
		in, err := v.e.DeliverInput(t.ID, "k", proto.TextInput("steer"))
		Expect(err).NotTo(HaveOccurred())
		Expect(in.State).To(Equal(store.InputSent))
		steer := v.next()
		Expect(steer.Type).To(Equal(proto.TypePromptSteer))
		Expect(v.e.Quiesce(ctx())).To(Succeed())
		v.clk.Advance(proto.WrittenWait - time.Millisecond)
		Expect(v.e.Quiesce(ctx())).To(Succeed())
		got, _ := v.st.Turn(t.ID)
		Expect(got.Outcome).To(BeNil(), "not before 30 s")
		v.clk.Advance(time.Millisecond)
		o := v.outcome(t.ID)
		Expect(o.Reason).To(Equal(proto.ReasonInputOutcomeUnknown))
		Expect(o.EffectUnknown).To(BeTrue())
		Expect(inputs()[0].State).To(Equal(store.InputUnknown))
		Consistently(v.conn.sent).ShouldNot(Receive(), "an unknown input is never resent")
	})

	It("records a prompt_steer that cannot be confirmed as sent as unknown, the cursor where it was", func() {
		v.conn.mu.Lock()
		v.conn.sendFail[proto.TypePromptSteer] = errSend
		v.conn.mu.Unlock()
		in, err := v.e.DeliverInput(t.ID, "k", proto.TextInput("steer"))
		Expect(err).NotTo(HaveOccurred())
		Expect(in.State).To(Equal(store.InputUnknown))
		o := v.outcome(t.ID)
		Expect(o.Reason).To(Equal(proto.ReasonInputOutcomeUnknown))
		got, _ := v.st.Turn(t.ID)
		Expect(got.InputCursor).To(Equal(0))
		Expect(got.Inputs[0].State).To(Equal(store.InputUnknown))
	})

	It("is idle while a prompt_steer waits for room in a full send queue, so the clock runs its 3 s budget out: the input is unknown and the next one is not sent", func() {
		_, err := v.e.DeliverInput(t.ID, "k1", proto.TextInput("first"))
		Expect(err).NotTo(HaveOccurred())
		Expect(v.next().Type).To(Equal(proto.TypePromptSteer))
		for _, k := range []string{"k2", "k3"} {
			in, err := v.e.DeliverInput(t.ID, k, proto.TextInput(k))
			Expect(err).NotTo(HaveOccurred())
			Expect(in.State).To(Equal(store.InputPending), "queued behind the first")
		}
		v.conn.mu.Lock()
		v.conn.full[proto.TypePromptSteer] = true
		v.conn.mu.Unlock()
		run := v.conn.stream(v.conn.runs, t.RunID)
		run.push(proto.TypePromptSteerAck, t.RunID, &proto.PromptSteerAckPayload{InputID: "1", Accepted: true})
		// The second input's send now waits for room: only the clock (or the daemon reading)
		// ends that wait, so Quiesce returns instead of waiting for the runner.
		Expect(v.e.Quiesce(ctx())).To(Succeed())
		Expect(inputs()[1].State).To(Equal(store.InputSent))
		v.clk.Advance(proto.CoreSendTimeout - time.Millisecond)
		Expect(v.e.Quiesce(ctx())).To(Succeed())
		got, _ := v.st.Turn(t.ID)
		Expect(got.Outcome).To(BeNil(), "not before the 3 s send budget has run out")
		v.clk.Advance(time.Millisecond)
		o := v.outcome(t.ID)
		Expect(o.Reason).To(Equal(proto.ReasonInputOutcomeUnknown))
		got, _ = v.st.Turn(t.ID)
		Expect(got.InputCursor).To(Equal(1), "a failed send does not advance the cursor (IN-22.3)")
		Expect(got.Inputs[1].State).To(Equal(store.InputUnknown))
		Expect(got.Inputs[2].State).To(Equal(store.InputPending))
		Consistently(v.conn.sent, 50*time.Millisecond).ShouldNot(Receive(), "the third input is not sent in the second's place")
	})

	It("resends after not_ready a second later, and marks an input awaiting its receipt unknown when the stream is lost", func() {
		_, err := v.e.DeliverInput(t.ID, "k", proto.TextInput("steer"))
		Expect(err).NotTo(HaveOccurred())
		first := v.next()
		run := v.conn.stream(v.conn.runs, t.RunID)
		run.push(proto.TypePromptSteerAck, t.RunID, &proto.PromptSteerAckPayload{InputID: "1", ErrorCode: proto.CodeNotReady})
		Eventually(func() string { return inputs()[0].Code }).Should(Equal(proto.CodeNotReady))
		Expect(v.e.Quiesce(ctx())).To(Succeed())
		Consistently(v.conn.sent, 50*time.Millisecond).ShouldNot(Receive())
		v.clk.Advance(time.Second)
		again := v.next()
		Expect(again.Payload).To(MatchJSON(first.Payload), "the same input, the same input_id")
		run.end(errSend)
		o := v.outcome(t.ID)
		Expect(o.Reason).To(Equal(proto.ReasonEventStreamIncomplete))
		Expect(inputs()[0]).To(And(HaveField("State", store.InputUnknown), HaveField("Sends", 2)))
	})

	It("leaves an input that awaited its receipt unknown after a restart, and never resends it", func() {
		_, err := v.e.DeliverInput(t.ID, "k", proto.TextInput("steer"))
		Expect(err).NotTo(HaveOccurred())
		Expect(v.next().Type).To(Equal(proto.TypePromptSteer))
		v.e.Close()
		Expect(v.st.Close()).To(Succeed())
		st, err := store.Open(v.path, store.Options{Clock: v.clk})
		Expect(err).NotTo(HaveOccurred())
		defer st.Close()
		conn := newFakeConn(hb("preparation", "environment_none", "durable_input_receipts"))
		e := execution.New(execution.Config{Store: st, Conns: &fakeConns{conn: conn}, Clock: v.clk})
		defer e.Close()
		_, err = e.Reconcile()
		Expect(err).NotTo(HaveOccurred())
		got, _ := st.Turn(t.ID)
		Expect(got.Outcome).To(HaveField("Reason", proto.ReasonExecutionInterrupted))
		Expect(got.Inputs).To(ConsistOf(HaveField("State", store.InputUnknown)))
		Consistently(conn.sent, "20ms").ShouldNot(Receive())
	})

	It("refuses input before started, and when the Runtime did not declare durable_input_receipts", func() {
		_, err := v.e.DeliverInput("nope", "k", proto.TextInput("x"))
		Expect(err).To(MatchError(execution.ErrNotFound))
		_, err = v.e.DeliverInput(t.ID, "", proto.TextInput("x"))
		Expect(err).To(MatchError(execution.ErrInvalid))

		v2 := newEnv()
		t2 := v2.start()
		v2.toStarted(t2)
		_, err = v2.e.DeliverInput(t2.ID, "k", proto.TextInput("x"))
		Expect(err).To(MatchError(execution.ErrInputUnsupported))
		raw, _ := json.Marshal(inputs())
		Expect(string(raw)).To(Equal("null"))
	})
})

func ctx() context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute) // a safety net: Quiesce waits for an event
	DeferCleanup(cancel)
	return c
}

package gateway_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
)

var _ = Describe("runtime_prepare transfers", Label("gateway", "runtime_prepare"), func() {
	const t1, t2 = "0e2f4a3c-5b6d-4e7f-8a9b-0c1d2e3f4a5b", "1e2f4a3c-5b6d-4e7f-8a9b-0c1d2e3f4a5b"
	var h *harness
	BeforeEach(func() { h = newHarness() })

	It("allows one transfer at a time per connection and routes results by transfer ID only (RP-17)", func(ctx SpecContext) {
		ws, s := h.dial(ctx)
		w, err := s.AwaitTransfer(t1)
		Expect(err).NotTo(HaveOccurred())
		_, err = s.AwaitTransfer(t2)
		Expect(err).To(MatchError(gateway.ErrTransferBusy))

		send(ctx, ws, proto.TypeRuntimePrepareResult, t2, &proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeReady})
		send(ctx, ws, proto.TypeRuntimePrepareResult, t1, &proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: "not_listed"})
		send(ctx, ws, proto.TypeRuntimePrepareResult, t1, &proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeReady})
		var ev gateway.Event
		Eventually(w.Events()).Should(Receive(&ev))
		Expect(ev.Envelope.ID).To(Equal(t1))
		Expect(ev.Invalid).To(MatchError(ContainSubstring("error_code")), "an invalid result is delivered with the rule it broke")
		Eventually(w.Events()).Should(Receive(&ev))
		Expect(ev.Invalid).NotTo(HaveOccurred())
		Expect(ev.Frame.Payload).To(Equal(&proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeReady}))

		w.Close()
		w2, err := s.AwaitTransfer(t2)
		Expect(err).NotTo(HaveOccurred(), "closing a transfer frees the slot")
		Expect(ws.CloseNow()).To(Succeed())
		Eventually(w2.Events()).Should(BeClosed())
		Expect(w2.Err()).To(MatchError(gateway.ErrSessionClosed))
	})
})

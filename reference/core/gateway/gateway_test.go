package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
)

func do(req *http.Request) (int, proto.HTTPError, []byte) {
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var e proto.HTTPError
	_ = json.Unmarshal(body, &e)
	return resp.StatusCode, e, body
}

func bootstrapReq(h *harness, method, body, credential string) *http.Request {
	req, _ := http.NewRequest(method, h.url(proto.RouteBootstrap), strings.NewReader(body))
	if credential != "" {
		req.Header.Set("Authorization", "Bearer "+credential)
	}
	req.Header.Set("Host", "attacker.example")
	return req
}

var _ = Describe("HTTP routes", Label("gateway", "connection"), func() {
	var h *harness
	BeforeEach(func() { h = newHarness() })

	It("answers bootstrap with ws_url from the public URL, never from request headers", func() {
		req := bootstrapReq(h, http.MethodPost, `{"device_id":"device-1"}`, secret)
		req.Host = "attacker.example"
		req.Header.Set("X-Forwarded-Host", "attacker.example")
		status, _, body := do(req)
		Expect(status).To(Equal(http.StatusOK))
		var b proto.BootstrapResponse
		Expect(json.Unmarshal(body, &b)).To(Succeed())
		Expect(b).To(Equal(proto.BootstrapResponse{DeviceID: device, WorkspaceID: "ws-1",
			WSURL: "ws://core.example:8080/api/v1/agent-daemon/ws", HeartbeatSeconds: 15, ProtocolVersion: proto.Version}))
		Expect(string(body)).NotTo(ContainSubstring(secret))
	})

	DescribeTable("bootstrap and device-status errors (facts §1.2)",
		func(req func(*harness) *http.Request, status int, code string) {
			got, e, body := do(req(h))
			Expect(got).To(Equal(status))
			Expect(e.Error).To(Equal(code))
			Expect(string(body)).NotTo(ContainSubstring(secret))
		},
		Entry("bootstrap is POST", func(h *harness) *http.Request { return bootstrapReq(h, http.MethodGet, "", secret) }, 405, proto.HTTPMethodNotAllowed),
		Entry("bad JSON", func(h *harness) *http.Request { return bootstrapReq(h, http.MethodPost, "{", secret) }, 400, proto.HTTPBadJSON),
		Entry("no device", func(h *harness) *http.Request { return bootstrapReq(h, http.MethodPost, `{}`, secret) }, 400, proto.HTTPMissingDeviceID),
		Entry("no bearer", func(h *harness) *http.Request {
			return bootstrapReq(h, http.MethodPost, `{"device_id":"device-1"}`, "")
		}, 401, proto.HTTPMissingBearer),
		Entry("unknown device", func(h *harness) *http.Request {
			return bootstrapReq(h, http.MethodPost, `{"device_id":"nope"}`, secret)
		}, 401, proto.HTTPUnknownDevice),
		Entry("wrong credential", func(h *harness) *http.Request {
			return bootstrapReq(h, http.MethodPost, `{"device_id":"device-1"}`, "wrong")
		}, 401, proto.HTTPBadCredential),
		Entry("not a daemon credential", func(h *harness) *http.Request {
			return bootstrapReq(h, http.MethodPost, `{"device_id":"api-key-device"}`, secret)
		}, 403, proto.HTTPWrongRuntimeType),
		Entry("device-status without device", func(h *harness) *http.Request {
			req, _ := http.NewRequest(http.MethodGet, h.url(proto.RouteDeviceStatus), nil)
			req.Header.Set("Authorization", "Bearer "+secret)
			return req
		}, 400, proto.HTTPMissingDeviceID),
		Entry("device-status with the credential in the URL", func(h *harness) *http.Request {
			req, _ := http.NewRequest(http.MethodGet, h.url(proto.RouteDeviceStatus)+"?device_id=device-1&token="+secret, nil)
			req.Header.Set("Authorization", "Bearer "+secret)
			return req
		}, 401, proto.HTTPBadCredential),
		Entry("ws without version", func(h *harness) *http.Request {
			req, _ := http.NewRequest(http.MethodGet, h.url(proto.RouteWebSocket)+"?device_id=device-1", nil)
			req.Header.Set("Authorization", "Bearer "+secret)
			return req
		}, 400, proto.HTTPMissingParams),
		Entry("ws with a version mismatch and a wrong credential: 426 comes first", func(h *harness) *http.Request {
			req, _ := http.NewRequest(http.MethodGet, h.url(proto.RouteWebSocket)+"?device_id=device-1&version=0.11.1", nil)
			req.Header.Set("Authorization", "Bearer wrong")
			return req
		}, 426, proto.HTTPIncompatibleVersion),
	)

	It("reports whether a device is online", func(ctx SpecContext) {
		status := func() bool {
			req, _ := http.NewRequest(http.MethodGet, h.url(proto.RouteDeviceStatus)+"?device_id=device-1", nil)
			req.Header.Set("Authorization", "Bearer "+secret)
			code, _, body := do(req)
			Expect(code).To(Equal(200))
			var s proto.DeviceStatusResponse
			Expect(json.Unmarshal(body, &s)).To(Succeed())
			return s.Online
		}
		Expect(status()).To(BeFalse())
		h.dial(ctx)
		Expect(status()).To(BeTrue())
	})

	It("registers nothing on a version mismatch", func(ctx SpecContext) {
		for _, v := range []string{"0.7.0", "0.8.99", "0.8.", proto.Version + "-dev", proto.Version + "+build", "", " " + proto.Version} {
			_, resp, err := websocket.Dial(ctx, h.wsURL(device, v), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + secret}}})
			Expect(err).To(HaveOccurred())
			Expect(resp.StatusCode).To(Equal(http.StatusUpgradeRequired), "version %q", v)
			Expect(h.g.Session(device)).To(BeNil())
		}
	})
})

var _ = Describe("connections", Label("gateway", "connection"), func() {
	var h *harness
	BeforeEach(func() { h = newHarness() })

	It("replaces an older connection of the same device and evicts its routes; a late deregistration keeps the newer", func(ctx SpecContext) {
		ws1, s1 := h.dial(ctx)
		run, err := s1.SubscribeDurable("run-1")
		Expect(err).NotTo(HaveOccurred())
		waiter, err := s1.AwaitAck("cancel:run-1")
		Expect(err).NotTo(HaveOccurred())

		ws2, s2 := h.dial(ctx)
		Expect(s2.ID()).To(BeNumerically(">", s1.ID()))
		Expect(drain(run.Events())).To(BeEmpty(), "nothing is fabricated")
		Expect(run.Err()).To(MatchError(gateway.ErrSessionClosed))
		Expect(drain(waiter.Receipt())).To(BeEmpty())
		Expect(waiter.Err()).To(MatchError(gateway.ErrSessionClosed))
		Eventually(s1.Done()).Should(BeClosed())
		_, _, err = ws1.Read(ctx)
		Expect(websocket.CloseStatus(err)).To(Equal(websocket.StatusPolicyViolation))

		Expect(s2.HasRoute("run-1")).To(BeFalse(), "the newer connection inherits no route")
		Expect(h.g.Session(device)).To(BeIdenticalTo(s2))
		// A frame for the old Run on the new connection has nowhere to go.
		send(ctx, ws2, proto.TypeDone, "run-1", &proto.DonePayload{})
		s1.Close(websocket.StatusNormalClosure, "late")
		Expect(h.g.Session(device)).To(BeIdenticalTo(s2))
	})

	It("knows no capabilities before a heartbeat, infers nothing from legacy members, and closes on an invalid heartbeat", func(ctx SpecContext) {
		ws, s := h.dial(ctx)
		_, known := s.Capabilities()
		Expect(known).To(BeFalse())
		Expect(ws.Write(ctx, websocket.MessageText, []byte(`{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"claude_available":true}}`))).To(Succeed())
		Eventually(func() bool { hb, known := s.Capabilities(); return known && len(hb.SupportedAgentKinds) == 0 }).Should(BeTrue())
		send(ctx, ws, proto.TypeHeartbeat, "", heartbeat("preparation"))
		Eventually(func() int { hb, _ := s.Capabilities(); return len(hb.SupportedAgentKinds) }).Should(Equal(1))

		bad := []byte(`{"type":"heartbeat","payload":{"ts":2,"active_requests":0,"supported_agent_kinds":[{"kind":"contract","available":true,"capabilities":{"streaming":true}}]}}`)
		Expect(ws.Write(ctx, websocket.MessageText, bad)).To(Succeed())
		Eventually(s.Done()).Should(BeClosed())
		_, known = s.Capabilities()
		Expect(known).To(BeFalse())
		Eventually(func() *gateway.Session { return h.g.Session(device) }).Should(BeNil())
	})

	It("closes a connection after 60 s of silence on the injected clock", func(ctx SpecContext) {
		ws, s := h.dial(ctx)
		h.clk.Advance(proto.LivenessTimeout - 1)
		send(ctx, ws, proto.TypeHeartbeat, "", heartbeat())
		Eventually(func() bool { _, known := s.Capabilities(); return known }).Should(BeTrue())
		h.clk.Advance(proto.LivenessTimeout - 1)
		Consistently(s.Done(), "20ms").ShouldNot(BeClosed())
		h.clk.Advance(1)
		Eventually(s.Done()).Should(BeClosed())
	})

	It("closes a connection that sends a frame over 4 MiB", func(ctx SpecContext) {
		ws, s := h.dial(ctx)
		big := append([]byte(`{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"daemon_version":"`), bytes.Repeat([]byte("x"), proto.MaxFrameBytes)...)
		big = append(big, []byte(`"}}`)...)
		_ = ws.Write(ctx, websocket.MessageText, big)
		// 4 MiB through loopback and the read limit: seconds on a starved machine, not one.
		Eventually(s.Done()).WithTimeout(30 * time.Second).Should(BeClosed())
	})

	It("queues frames in order and refuses once the connection is closed", func(ctx SpecContext) {
		ws, s := h.dial(ctx)
		for i := range 3 {
			Expect(s.Send(ctx, proto.MustEnvelope(proto.TypePromptCancel, "run", &proto.PromptCancelPayload{DeliveryID: string(rune('a' + i))}))).To(Succeed())
		}
		for i := range 3 {
			_, raw, err := ws.Read(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(raw)).To(ContainSubstring(`"delivery_id":"` + string(rune('a'+i)) + `"`))
		}
		s.Close(websocket.StatusNormalClosure, "bye")
		Expect(s.Send(ctx, proto.MustEnvelope(proto.TypeDeviceShutdown, "", nil))).To(MatchError(gateway.ErrSessionClosed))
		_, err := s.SubscribeDurable("run")
		Expect(err).To(MatchError(gateway.ErrSessionClosed))
	})
})

var _ = Describe("subscriptions", Label("gateway", "subscriptions"), func() {
	var h *harness
	BeforeEach(func() { h = newHarness() })

	status := func(handle string, rev uint64, state string) *proto.PreparationStatusPayload {
		p := &proto.PreparationStatusPayload{ExecutorID: "e", Handle: handle, Revision: rev, State: state, ExpiresAt: 1800000000000}
		if state == proto.StateFailed {
			p.ErrorCode = proto.CodePreparationFailed
		}
		return p
	}

	It("delivers a Run's frames in order and closes cleanly at done", func(ctx SpecContext) {
		ws, s := h.dial(ctx)
		run, err := s.SubscribeDurable("run")
		Expect(err).NotTo(HaveOccurred())
		_, err = s.SubscribeDurable("run")
		Expect(err).To(MatchError(gateway.ErrDuplicate))
		send(ctx, ws, proto.TypeDelta, "run", &proto.DeltaPayload{Delta: "a", Sequence: 1})
		send(ctx, ws, proto.TypeDelta, "other-run", &proto.DeltaPayload{Delta: "x", Sequence: 1})
		send(ctx, ws, proto.TypeError, "run", map[string]any{"error": "boom", "code": "not-a-code", "http_status": "x"})
		send(ctx, ws, proto.TypeDone, "run", &proto.DonePayload{Content: "a"})
		send(ctx, ws, proto.TypeDelta, "run", &proto.DeltaPayload{Delta: "late", Sequence: 2})
		evs := drain(run.Events())
		Expect(types(evs)).To(Equal([]string{"delta", "error", "done"}))
		Expect(evs[1].Frame.Payload.(*proto.ErrorPayload).Code).To(BeEmpty(), "an unknown engine code is unclassified, the frame kept")
		Expect(run.Err()).NotTo(HaveOccurred())
		Expect(s.HasRoute("run")).To(BeFalse())
	})

	It("ends a Run subscription with an observation error on disconnect, fabricating nothing", func(ctx SpecContext) {
		ws, s := h.dial(ctx)
		run, _ := s.SubscribeDurable("run")
		send(ctx, ws, proto.TypeDelta, "run", &proto.DeltaPayload{Delta: "a", Sequence: 1})
		Expect(ws.Close(websocket.StatusNormalClosure, "client closing")).To(Succeed())
		Expect(types(drain(run.Events()))).To(Equal([]string{"delta"}))
		Expect(run.Err()).To(MatchError(gateway.ErrSessionClosed))
	})

	It("ends an unconsumed Run subscription with an overflow error after 256 frames, fabricating nothing", func(ctx SpecContext) {
		ws, s := h.dial(ctx)
		run, _ := s.SubscribeDurable("run")
		for i := range proto.RunSubscriptionBuffer + 1 {
			send(ctx, ws, proto.TypeDelta, "run", &proto.DeltaPayload{Delta: "x", Sequence: uint64(i + 1)})
		}
		send(ctx, ws, proto.TypeDone, "run", &proto.DonePayload{})
		Eventually(func() bool { return s.HasRoute("run") }).Should(BeFalse())
		evs := drain(run.Events())
		Expect(evs).To(HaveLen(proto.RunSubscriptionBuffer))
		for _, e := range evs {
			Expect(e.Envelope.Type).To(Equal(proto.TypeDelta))
		}
		Expect(run.Err()).To(MatchError(gateway.ErrSubscriberOverflow))
	})

	It("orders preparation statuses by revision per handle and closes at a terminal state", func(ctx SpecContext) {
		ws, s := h.dial(ctx)
		prep, err := s.SubscribePreparation("prepare")
		Expect(err).NotTo(HaveOccurred())
		send(ctx, ws, proto.TypePreparationStatus, "prepare", status("h", 2, proto.StateReady))
		send(ctx, ws, proto.TypePreparationStatus, "prepare", status("h", 1, proto.StatePreparing))
		send(ctx, ws, proto.TypePreparationStatus, "prepare", status("foreign", 100, proto.StateFailed))
		send(ctx, ws, proto.TypePreparationStatus, "prepare", status("h", 2, proto.StateReady))
		send(ctx, ws, proto.TypePreparationStatus, "prepare", &proto.PreparationStatusPayload{State: proto.StateRejected, Operation: proto.OperationStart, ErrorCode: proto.CodeStartConflict, Handle: "h"})
		send(ctx, ws, proto.TypePreparationStatus, "prepare", status("h", 3, proto.StateReleased))
		send(ctx, ws, proto.TypePreparationStatus, "prepare", status("h", 4, proto.StateReady))
		evs := drain(prep.Events())
		var got []string
		for _, e := range evs {
			got = append(got, e.Frame.Payload.(*proto.PreparationStatusPayload).State)
		}
		Expect(got).To(Equal([]string{proto.StateReady, proto.StateRejected, proto.StateReleased}))
		Expect(prep.Err()).NotTo(HaveOccurred())
	})

	It("ends an unconsumed preparation subscription with an overflow error after 16 statuses", func(ctx SpecContext) {
		ws, s := h.dial(ctx)
		prep, _ := s.SubscribePreparation("prepare")
		for i := range proto.PreparationSubscriptionFrames + 1 {
			send(ctx, ws, proto.TypePreparationStatus, "prepare", status("h", uint64(i+1), proto.StatePreparing))
		}
		Eventually(func() error { return prep.Err() }).Should(MatchError(gateway.ErrSubscriberOverflow))
		Expect(drain(prep.Events())).To(HaveLen(proto.PreparationSubscriptionFrames))
	})

	It("routes receipts by delivery ID only and refuses a duplicate pending delivery ID", func(ctx SpecContext) {
		ws, s := h.dial(ctx)
		w, err := s.AwaitAck("cancel:run")
		Expect(err).NotTo(HaveOccurred())
		_, err = s.AwaitAck("cancel:run")
		Expect(err).To(MatchError(gateway.ErrDuplicate))
		send(ctx, ws, proto.TypeInteractionDecisionAck, "run", &proto.InteractionDecisionAckPayload{DeliveryID: "other", Applied: true})
		send(ctx, ws, proto.TypeInteractionDecisionAck, "run", &proto.InteractionDecisionAckPayload{DeliveryID: "cancel:run", Applied: true})
		evs := drain(w.Receipt())
		Expect(evs).To(HaveLen(1))
		Expect(evs[0].Frame.Payload.(*proto.InteractionDecisionAckPayload).DeliveryID).To(Equal("cancel:run"))
		Expect(w.Err()).NotTo(HaveOccurred())
	})

	// The runner puts a Run's frames and its receipts, taken from separate subscriptions, back
	// in wire order by this number (execution's intake): it must follow the connection's order.
	It("numbers a connection's inbound frames across subscriptions in wire order", func(ctx SpecContext) {
		ws, s := h.dial(ctx)
		run, err := s.SubscribeDurable("run")
		Expect(err).NotTo(HaveOccurred())
		w, err := s.AwaitAck("decision:run:1")
		Expect(err).NotTo(HaveOccurred())
		send(ctx, ws, proto.TypeDelta, "run", &proto.DeltaPayload{Delta: "a", Sequence: 1})
		send(ctx, ws, proto.TypeInteractionDecisionAck, "p1", &proto.InteractionDecisionAckPayload{DeliveryID: "decision:run:1", Applied: true})
		send(ctx, ws, proto.TypeDone, "run", &proto.DonePayload{Content: "a"})
		evs, ack := drain(run.Events()), drain(w.Receipt())
		Expect(types(evs)).To(Equal([]string{"delta", "done"}))
		Expect(ack).To(HaveLen(1))
		Expect(evs[0].Seq).To(BeNumerically(">", 0))
		Expect(ack[0].Seq).To(BeNumerically(">", evs[0].Seq))
		Expect(evs[1].Seq).To(BeNumerically(">", ack[0].Seq))
	})

	It("bounds preparation subscriptions per connection", func(ctx SpecContext) {
		_, s := h.dial(ctx)
		for i := range proto.PreparationSubscriptions {
			_, err := s.SubscribePreparation(string(rune(0x4e00 + i)))
			Expect(err).NotTo(HaveOccurred())
		}
		_, err := s.SubscribePreparation("one-too-many")
		Expect(err).To(MatchError(gateway.ErrTooManySubscriptions))
	})
})

var _ = context.Background

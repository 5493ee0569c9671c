package fault_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/proto"
)

var _ = Describe("bootstrap, device-status and the upgrade pass through", Label("passthrough"), func() {
	var r *rig
	AfterEach(func() { r.close() })

	It("rewrites only ws_url, so the Runtime dials the relay", func() {
		r = newRig(1)
		u, err := url.Parse(r.wsURL)
		Expect(err).NotTo(HaveOccurred())
		relayURL, _ := url.Parse(r.relay.URL())
		Expect(u.Host).To(Equal(relayURL.Host))
		Expect(u.Path).To(Equal(proto.RouteWebSocket))
		// Every other member is Core's.
		req, _ := http.NewRequest(http.MethodPost, r.relay.URL()+"/agent-daemon/bootstrap", strings.NewReader(`{"device_id":"dev"}`))
		req.Header.Set("Authorization", "Bearer "+credential)
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		var got proto.BootstrapResponse
		Expect(json.NewDecoder(resp.Body).Decode(&got)).To(Succeed())
		Expect(got).To(Equal(proto.BootstrapResponse{DeviceID: "dev", WorkspaceID: "w", WSURL: r.wsURL, HeartbeatSeconds: 15, ProtocolVersion: proto.Version}))
	})

	It("forwards the credential on every request and never logs or records it", Label("credential"), func() {
		r = newRig(1,
			fault.Rule{Name: "lose-first-delta", Match: fault.Match{Type: proto.TypeDelta, Nth: 1}, Action: fault.Drop()},
			fault.Rule{Name: "refuse", Match: fault.Match{Type: proto.TypeDone}, Action: fault.RefuseReconnect(1, 0)})
		rt, core := r.connect()
		send(rt, delta("run", 1), delta("run", 2), frame(proto.TypeDone, "run", &proto.DonePayload{}))
		expectFrames(core, delta("run", 2), frame(proto.TypeDone, "run", &proto.DonePayload{}))
		core.Drop()
		expectClosed(rt)
		_, err := dial(r.wsURL) // refused by the rule
		Expect(err).To(HaveOccurred())
		r.core.refuseNext(http.StatusUnauthorized, proto.HTTPBadCredential)
		_, err = dial(r.wsURL) // refused by Core
		Expect(err).To(HaveOccurred())
		// device-status, as a daemon's liveness probe calls it.
		req, _ := http.NewRequest(http.MethodGet, r.relay.URL()+"/agent-daemon/device-status?device_id=dev", nil)
		req.Header.Set("Authorization", "Bearer "+credential)
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(string(body)).To(MatchJSON(`{"device_id":"dev","online":true}`))

		// bootstrap, upgrade, the upgrade Core refused, device-status: each carried the credential.
		Expect(r.core.authSeen()).To(Equal([]string{"Bearer " + credential, "Bearer " + credential, "Bearer " + credential, "Bearer " + credential}))
		events := r.relay.Events()
		Expect(events).To(HaveLen(3)) // the drop, the refusal armed, the upgrade refused
		Expect(containsCredential(fmt.Sprintf("%+v", events))).To(BeFalse(), "the event log holds the credential")
		Expect(r.logs.String()).To(ContainSubstring("fault applied"))
		Expect(containsCredential(r.logs.String())).To(BeFalse(), "the relay logged the credential:\n%s", r.logs)
	})

	It("hands Core's refusal of the upgrade back as Core gave it", func() {
		r = newRig(1)
		r.core.refuseNext(http.StatusUpgradeRequired, proto.HTTPIncompatibleVersion)
		_, err := dial(r.wsURL)
		var refused *dialError
		Expect(err).To(BeAssignableToTypeOf(refused))
		refused = err.(*dialError)
		Expect(refused.status).To(Equal(http.StatusUpgradeRequired))
		Expect(string(refused.body)).To(Equal(`{"error":"incompatible_version","detail":"refused by the raw Core"}` + "\n"))
		// The Runtime was never accepted, and the next attempt goes through.
		r.connect()
	})
})

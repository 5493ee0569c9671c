package e2e_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

var _ = Describe("the reference Core and the reference Runtime as two processes", Label("e2e", "two-processes"), func() {
	It("runs a Turn end to end", func(ctx SpecContext) {
		c := startCore(filepath.Join(GinkgoT().TempDir(), "core.db"))
		cred := c.register("device-e2e")

		out := &syncBuffer{}
		startProcess(out, append(os.Environ(), "WIRECHECK_CREDENTIAL="+cred), "runtime", "--server", c.base+proto.APIPrefix, "--device", "device-e2e")
		Eventually(online(c, "device-e2e"), time.Minute).Should(BeTrue(), "the Runtime never connected:\n%s", out)

		var t core.TurnResponse
		Expect(c.api(http.MethodPost, "/api/v1/turns", core.TurnRequest{DeviceID: "device-e2e", Environment: "none",
			Configuration: proto.PromptRequestPayload{AgentKind: "contract", AgentOptions: json.RawMessage(`{"contract":{"turn":{"events":[{"delta":"hi"}],"content":"hi"}}}`)},
			Input:         proto.TextInput("hello")}, &t)).To(Equal(http.StatusCreated))
		Eventually(func() *store.Outcome { return c.turn(t.TurnID).Outcome }, time.Minute).ShouldNot(BeNil(),
			"the Turn never finished; Runtime output:\n%s", out)
		o := c.turn(t.TurnID).Outcome
		Expect(o.Status).To(Equal(proto.TurnCompleted), "outcome %+v; journal %+v", o, c.journal(t.TurnID))
		Expect(o.Content).To(Equal("hi"), "the Turn's content travels from the Runtime's done into Core's record")
		Expect(countReceived(c.journal(t.TurnID), proto.TypeDone)).To(Equal(1))
		Expect(out.String()).NotTo(ContainSubstring(cred), "the Runtime logged its credential")
		Expect(c.stderr.String()).NotTo(ContainSubstring(cred), "the Core logged a credential")
	})
})

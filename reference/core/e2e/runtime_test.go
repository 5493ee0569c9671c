package e2e_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// agentOptions is the contract script of the end-to-end Turn. WIRECHECK_E2E_AGENT_OPTIONS
// overrides it (a JSON object) until the contract harness's language is settled in main.
func agentOptions() json.RawMessage {
	if s := os.Getenv("WIRECHECK_E2E_AGENT_OPTIONS"); s != "" {
		return json.RawMessage(s)
	}
	return json.RawMessage(`{"contract":{}}`)
}

var _ = Describe("the reference Core and the reference Runtime as two processes", Label("e2e", "two-processes"), func() {
	It("runs a Turn end to end", func(ctx SpecContext) {
		if err := exec.Command(binary, "runtime", "--help").Run(); err != nil {
			Skip("`wirecheck runtime` is not in this build yet (the reference Runtime lands in main with W1.x); " +
				"this test runs once both sides are merged")
		}
		c := startCore(filepath.Join(GinkgoT().TempDir(), "core.db"))
		cred := c.register("device-e2e")

		rt := exec.Command(binary, "runtime", "--server", c.base+proto.APIPrefix, "--device", "device-e2e")
		rt.Env = append(os.Environ(), "WIRECHECK_CREDENTIAL="+cred)
		out := &syncBuffer{}
		rt.Stdout, rt.Stderr = out, out
		Expect(rt.Start()).To(Succeed())
		exited := make(chan struct{})
		go func() { _ = rt.Wait(); close(exited) }()
		DeferCleanup(func() {
			_ = rt.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				_ = rt.Process.Kill()
				<-exited
			}
		})
		Eventually(online(c, "device-e2e"), 20*time.Second).Should(BeTrue(), "the Runtime never connected:\n%s", out)

		var t core.TurnResponse
		Expect(c.api(http.MethodPost, "/api/v1/turns", core.TurnRequest{DeviceID: "device-e2e", Environment: "none",
			Configuration: proto.PromptRequestPayload{AgentKind: "contract", AgentOptions: agentOptions()},
			Input:         proto.TextInput("hello")}, &t)).To(Equal(http.StatusCreated))
		Eventually(func() *store.Outcome { return c.turn(t.TurnID).Outcome }, 30*time.Second).ShouldNot(BeNil(),
			"the Turn never finished; Runtime output:\n%s", out)
		o := c.turn(t.TurnID).Outcome
		Expect(o.Status).To(Equal(proto.TurnCompleted), "outcome %+v; journal %+v", o, c.journal(t.TurnID))
		Expect(countReceived(c.journal(t.TurnID), proto.TypeDone)).To(Equal(1))
		Expect(out.String()).NotTo(ContainSubstring(cred), "the Runtime logged its credential")
		Expect(c.stderr.String()).NotTo(ContainSubstring(cred), "the Core logged a credential")
	})
})

package e2e_test

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// startProcess starts one of the three processes and stops it (SIGTERM, then SIGKILL) at cleanup.
func startProcess(out *syncBuffer, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out
	Expect(cmd.Start()).To(Succeed())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	DeferCleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	return cmd
}

var _ = Describe("the reference Core, the fault relay and the reference Runtime as three processes", Label("e2e", "faults"), func() {
	It("shows a connection cut after started as an unknown outcome, and the Runtime replays nothing", func(ctx SpecContext) {
		c := startCore(filepath.Join(GinkgoT().TempDir(), "core.db"))
		cred := c.register("device-relay")

		schedule := filepath.Join(GinkgoT().TempDir(), "cut.yaml")
		Expect(os.WriteFile(schedule, []byte(`seed: 7
rules:
  - name: cut-after-started
    match: {direction: runtime→core, type: preparation_status, payload: {state: started}, nth: 1}
    cut: {}
`), 0o644)).To(Succeed())
		relayOut := &syncBuffer{}
		relay := exec.Command(binary, "relay", "--upstream", c.base+proto.APIPrefix, "--schedule", schedule)
		stdout, err := relay.StdoutPipe()
		Expect(err).NotTo(HaveOccurred())
		relay.Stderr = relayOut
		Expect(relay.Start()).To(Succeed())
		relayExited := make(chan struct{})
		lines := bufio.NewScanner(stdout)
		Expect(lines.Scan()).To(BeTrue(), "the relay printed nothing")
		first := lines.Text() // relay <base> -> <upstream> (seed 7)
		go func() {
			for lines.Scan() {
				relayOut.Write([]byte(lines.Text() + "\n"))
			}
			_ = relay.Wait()
			close(relayExited)
		}()
		DeferCleanup(func() {
			_ = relay.Process.Signal(syscall.SIGTERM)
			<-relayExited
		})
		Expect(first).To(ContainSubstring("(seed 7)"))
		relayBase := strings.Fields(first)[1]

		rtOut := &syncBuffer{}
		startProcess(rtOut, append(os.Environ(), "WIRECHECK_CREDENTIAL="+cred), "runtime", "--server", relayBase, "--device", "device-relay")
		Eventually(online(c, "device-relay"), time.Minute).Should(BeTrue(), "the Runtime never connected through the relay:\n%s\n%s", rtOut, relayOut)

		var t core.TurnResponse
		Expect(c.api(http.MethodPost, "/api/v1/turns", core.TurnRequest{DeviceID: "device-relay", Environment: "none",
			Configuration: proto.PromptRequestPayload{AgentKind: "contract",
				AgentOptions: []byte(`{"contract":{"turn":{"wait_for_cancel":true},"cancel":{"settle_ms":100}}}`)},
			Input: proto.TextInput("hello")}, &t)).To(Equal(http.StatusCreated))

		Eventually(func() *store.Outcome { return c.turn(t.TurnID).Outcome }, time.Minute).ShouldNot(BeNil(),
			"the Turn never got an outcome:\n%s\n%s", rtOut, relayOut)
		o := c.turn(t.TurnID).Outcome
		Expect(o.Status).To(Equal(proto.TurnFailed))
		Expect(o.Reason).To(Equal(proto.ReasonEventStreamIncomplete), "outcome %+v", o)
		Expect(o.EffectUnknown).To(BeTrue(), "a cut after dispatch leaves the effect unknown")
		Expect(countReceived(c.journal(t.TurnID), proto.TypeDone)).To(Equal(0), "Core must not see an invented done")

		// The Runtime settles, reconnects through the relay, and nothing is replayed to it or by it.
		Eventually(online(c, "device-relay"), time.Minute).Should(BeTrue(), "the Runtime did not reconnect:\n%s", rtOut)
		journal := len(c.journal(t.TurnID))
		Consistently(func() int { return len(c.journal(t.TurnID)) }, 300*time.Millisecond, 50*time.Millisecond).Should(Equal(journal))
		Expect(c.turn(t.TurnID).Outcome.Reason).To(Equal(proto.ReasonEventStreamIncomplete))
		Expect(rtOut.String()).To(ContainSubstring("transport ended; settling native work"))
		Expect(relayOut.String() + rtOut.String()).NotTo(ContainSubstring(cred))
	})
})

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

var _ = Describe("wirecheck monitor between the reference Core and the reference Runtime", Label("e2e", "monitor"), func() {
	It("watches a Turn and its cancellation pass, and raises no alarm against either side", func(ctx SpecContext) {
		c := startCore(filepath.Join(GinkgoT().TempDir(), "core.db"))
		cred := c.register("device-monitor")

		dir := GinkgoT().TempDir()
		alarms, capture, journal, key := filepath.Join(dir, "alarms.json"), filepath.Join(dir, "capture.jsonl"),
			filepath.Join(dir, "monitor.jsonl"), filepath.Join(dir, "signing.pem")
		keygen, err := exec.Command(binary, "keygen", "--out", key).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "%s", keygen)
		mon := exec.Command(binary, "monitor", "--upstream", c.base+proto.APIPrefix, "--json", alarms, "--capture", capture,
			"--journal", journal, "--sign-key", key)
		stdout, err2 := mon.StdoutPipe()
		err = err2
		Expect(err).NotTo(HaveOccurred())
		monErr := &syncBuffer{}
		mon.Stderr = monErr
		Expect(mon.Start()).To(Succeed())
		lines := bufio.NewScanner(stdout)
		Expect(lines.Scan()).To(BeTrue(), "the monitor printed nothing: %s", monErr)
		first := lines.Text() // monitor <base> -> <upstream>
		monOut, monExited := &syncBuffer{}, make(chan error, 1)
		go func() {
			for lines.Scan() {
				monOut.Write([]byte(lines.Text() + "\n"))
			}
			monExited <- mon.Wait()
		}()
		stopped := false
		DeferCleanup(func() {
			if !stopped {
				_ = mon.Process.Signal(syscall.SIGTERM)
				<-monExited
			}
		})
		monBase := strings.Fields(first)[1]

		rtOut := &syncBuffer{}
		startProcess(rtOut, append(os.Environ(), "WIRECHECK_CREDENTIAL="+cred), "runtime", "--server", monBase, "--device", "device-monitor")
		Eventually(online(c, "device-monitor"), time.Minute).Should(BeTrue(), "the Runtime never connected through the monitor:\n%s\n%s", rtOut, monErr)

		var t core.TurnResponse
		Expect(c.api(http.MethodPost, "/api/v1/turns", core.TurnRequest{DeviceID: "device-monitor", Environment: "none",
			Configuration: proto.PromptRequestPayload{AgentKind: "contract",
				AgentOptions: []byte(`{"contract":{"turn":{"events":[{"delta":"hi"}],"wait_for_cancel":true},"cancel":{"settle_ms":0}}}`)},
			Input: proto.TextInput("hello")}, &t)).To(Equal(http.StatusCreated))
		Eventually(func() int { return countReceived(c.journal(t.TurnID), proto.TypeDelta) }, time.Minute).Should(Equal(1))
		Expect(c.api(http.MethodPost, "/api/v1/turns/"+t.TurnID+"/cancel", nil, nil)).To(Equal(http.StatusAccepted))
		Eventually(func() *store.Outcome { return c.turn(t.TurnID).Outcome }, time.Minute).ShouldNot(BeNil(),
			"the Turn never got an outcome:\n%s\n%s", rtOut, monOut)

		Expect(mon.Process.Signal(syscall.SIGTERM)).To(Succeed())
		Eventually(monExited, time.Minute).Should(Receive(BeNil()), "the monitor exited with alarms:\n%s", monOut)
		stopped = true
		Expect(monOut.String()).To(MatchRegexp(`\d+ frames checked, 0 alarms`))
		Expect(monOut.String()).NotTo(ContainSubstring("ALARM"))
		raw, err := os.ReadFile(alarms)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).To(ContainSubstring(`"alarms": []`))
		Expect(monOut.String()+monErr.String()).NotTo(ContainSubstring(cred), "the monitor showed the credential")
	})
})

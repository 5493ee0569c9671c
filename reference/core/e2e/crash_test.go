package e2e_test

import (
	"context"
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

func startTurn(c *coreProcess, deviceID string) core.TurnResponse {
	var t core.TurnResponse
	code := c.api(http.MethodPost, "/api/v1/turns", core.TurnRequest{DeviceID: deviceID, Environment: "none",
		Configuration: proto.PromptRequestPayload{AgentKind: "contract"}, Input: proto.TextInput("hello")}, &t)
	Expect(code).To(Equal(http.StatusCreated))
	return t
}

func status(handle string, rev uint64, state, run string) *proto.PreparationStatusPayload {
	return &proto.PreparationStatusPayload{ExecutorID: "executor", Handle: handle, Revision: rev, State: state, RunID: run,
		ExpiresAt: time.Now().Add(proto.AdmissionExpiry).UnixMilli()}
}

// playToStarted answers the Core's prepare and start as a Runtime would.
func playToStarted(ctx context.Context, d *daemon, t core.TurnResponse) {
	prep := d.read(ctx)
	Expect(prep.Type).To(Equal(proto.TypeExecutionPrepare))
	d.send(ctx, proto.TypePreparationStatus, prep.ID, status("handle", 1, proto.StatePreparing, ""))
	d.send(ctx, proto.TypePreparationStatus, prep.ID, status("handle", 2, proto.StateReady, ""))
	start := d.read(ctx)
	Expect(start.Type).To(Equal(proto.TypeExecutionStart))
	Expect(start.ID).To(Equal(prep.ID))
	p, err := proto.Decode[proto.ExecutionStartPayload](start)
	Expect(err).NotTo(HaveOccurred())
	Expect(p.RunID).To(Equal(t.RunID))
	d.send(ctx, proto.TypePreparationStatus, prep.ID, status("handle", 3, proto.StateStarting, t.RunID))
	d.send(ctx, proto.TypePreparationStatus, prep.ID, status("handle", 4, proto.StateStarted, t.RunID))
}

func online(c *coreProcess, id string) func() bool {
	return func() bool {
		var s core.DeviceStatus
		return c.api(http.MethodGet, "/api/v1/devices/"+id, nil, &s) == http.StatusOK && s.Online && s.Capabilities != nil
	}
}

func countReceived(j []store.Event, typ string) int {
	n := 0
	for _, ev := range j {
		if ev.Kind == store.EventReceived && ev.Type == typ {
			n++
		}
	}
	return n
}

var _ = Describe("a Core killed mid-Turn", Label("e2e", "crash"), func() {
	It("keeps every record it committed, settles the in-flight Turn as interrupted and dispatches nothing again", func(ctx SpecContext) {
		data := filepath.Join(GinkgoT().TempDir(), "core.db")
		c := startCore(data)
		cred := c.register("device-1")
		d := connect(ctx, c.base, "device-1", cred)
		Eventually(online(c, "device-1")).Should(BeTrue())

		// A first Turn completes before the crash.
		t1 := startTurn(c, "device-1")
		playToStarted(ctx, d, t1)
		d.send(ctx, proto.TypeDelta, t1.RunID, &proto.DeltaPayload{Delta: "done before", Sequence: 1})
		d.send(ctx, proto.TypeDone, t1.RunID, &proto.DonePayload{Content: ""})
		Eventually(func() *store.Outcome { return c.turn(t1.TurnID).Outcome }).ShouldNot(BeNil())
		before1, journal1 := c.turn(t1.TurnID), c.journal(t1.TurnID)
		Expect(before1.Outcome.Status).To(Equal(proto.TurnCompleted))
		Expect(before1.Outcome.Content).To(Equal("done before"))

		// A second Turn is mid-stream when the Core dies.
		t2 := startTurn(c, "device-1")
		playToStarted(ctx, d, t2)
		for i := 1; i <= 3; i++ {
			d.send(ctx, proto.TypeDelta, t2.RunID, &proto.DeltaPayload{Delta: "x", Sequence: uint64(i)})
		}
		Eventually(func() int { return countReceived(c.journal(t2.TurnID), proto.TypeDelta) }).Should(Equal(3))
		// started travels on the preparation stream, the deltas on the Run's: Core may take the
		// deltas first, so the phase is waited for rather than read at once.
		Eventually(func() string { return c.turn(t2.TurnID).Phase }).Should(Equal(store.PhaseRunning))
		before2, journal2 := c.turn(t2.TurnID), c.journal(t2.TurnID)
		Expect(before2.Outcome).To(BeNil())

		c.kill()

		c2 := startCore(data)
		// Every committed record is there, unchanged.
		after1 := c2.turn(t1.TurnID)
		Expect(after1.Outcome.Status).To(Equal(before1.Outcome.Status))
		Expect(after1.Outcome.Content).To(Equal(before1.Outcome.Content))
		Expect(after1.Outcome.RecordedAt.Equal(before1.Outcome.RecordedAt)).To(BeTrue())
		Expect(c2.journal(t1.TurnID)).To(Equal(journal1))

		// The in-flight Turn is settled from what was committed: unknown, never completed.
		after2 := c2.turn(t2.TurnID)
		Expect(after2.Phase).To(Equal(store.PhaseRunning), "the phase it had reached")
		Expect(after2.Outcome).NotTo(BeNil())
		Expect(after2.Outcome.Status).To(Equal(proto.TurnFailed))
		Expect(after2.Outcome.Reason).To(Equal(proto.ReasonExecutionInterrupted))
		Expect(after2.Outcome.EffectUnknown).To(BeTrue())
		Expect(after2.RunID).To(Equal(before2.RunID))
		Expect(c2.journal(t2.TurnID)).To(Equal(journal2), "every committed event, nothing invented")
		Expect(c2.stderr.String()).To(ContainSubstring(t2.TurnID))

		// The device and its credential survived; reconnecting replays nothing.
		d2 := connect(ctx, c2.base, "device-1", cred)
		Eventually(online(c2, "device-1")).Should(BeTrue())
		d2.send(ctx, proto.TypeDone, t2.RunID, &proto.DonePayload{Content: "late"})
		d2.quiet(ctx, 500*time.Millisecond)
		Expect(c2.turn(t2.TurnID).Outcome.Reason).To(Equal(proto.ReasonExecutionInterrupted), "a late done changes nothing")

		// The credential is in neither the data file nor the logs.
		c2.stop()
		raw, err := os.ReadFile(data)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).NotTo(ContainSubstring(cred))
		Expect(c.stderr.String() + c2.stderr.String()).NotTo(ContainSubstring(cred))
	})
})

package agentruntime_test

import (
	"context"
	"errors"
	"sync/atomic"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	ar "github.com/wirecheck/wirecheck/agentruntime"
)

var _ = Describe("Memory adapter", Label("memory"), func() {
	var (
		ctx       context.Context
		rt        *ar.Memory
		connected atomic.Bool
	)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

	BeforeEach(func() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
		DeferCleanup(cancel)
		checkNoLeaks()
		connected.Store(false)
		rt = ar.NewMemory(ar.MemoryOptions{
			Allowlist: ar.AllowEnv(secretName),
			LookupEnv: func(n string) (string, bool) { return secretValue, n == secretName },
			Readiness: func(context.Context, ar.UnitID) bool { return connected.Load() },
			Now:       func() time.Time { return at },
		})
		DeferCleanup(rt.Close)
	})

	provision := func(id ar.UnitID) ar.UnitID {
		GinkgoHelper()
		got, err := rt.Provision(ctx, ar.UnitSpec{ID: id, Command: "anything", SecretEnv: []string{secretName}})
		Expect(err).NotTo(HaveOccurred())
		return got
	}

	It("moves through the lifecycle with the port's verbs", func() {
		id := provision("unit")
		Expect(healthOf(rt, id)()).To(Equal(ar.Provisioned))
		Expect(rt.Start(ctx, id)).To(Succeed())
		Expect(healthOf(rt, id)()).To(Equal(ar.Starting))
		Expect(rt.Start(ctx, id)).To(MatchError(ar.ErrAlreadyRunning))
		connected.Store(true)
		Expect(healthOf(rt, id)()).To(Equal(ar.Connected), "readiness decides, as for the real adapters")
		Expect(rt.Pause(ctx, id)).To(Succeed())
		Expect(healthOf(rt, id)()).To(Equal(ar.Paused))
		Expect(rt.Resume(ctx, id)).To(Succeed())
		Expect(healthOf(rt, id)()).To(Equal(ar.Connected))
		Expect(rt.Stop(ctx, id, time.Second)).To(Succeed())
		st, err := rt.Health(ctx, id)
		Expect(err).NotTo(HaveOccurred())
		Expect(st).To(Equal(ar.Status{ID: id, Health: ar.Stopped, Exit: &ar.Exit{Code: 0, At: at}}))
		Expect(rt.Wait(ctx, id)).To(Equal(ar.Exit{Code: 0, At: at}))
		Expect(rt.Restart(ctx, id, time.Second)).To(Succeed())
		Expect(healthOf(rt, id)()).To(Equal(ar.Connected))
		Expect(rt.List(ctx)).To(Equal([]ar.Status{{ID: id, Health: ar.Connected}}))
	})

	It("ends a run on Kill, waking a waiter with the signal", func() {
		id := provision("victim")
		Expect(rt.Start(ctx, id)).To(Succeed())
		exits := make(chan ar.Exit, 1)
		go func() {
			defer GinkgoRecover()
			ex, err := rt.Wait(ctx, id)
			Expect(err).NotTo(HaveOccurred())
			exits <- ex
		}()
		Expect(rt.Kill(ctx, id, syscall.SIGKILL)).To(Succeed())
		Eventually(exits).Should(Receive(Equal(ar.Exit{Code: -1, Signal: syscall.SIGKILL, At: at})))
		Expect(healthOf(rt, id)()).To(Equal(ar.Exited))
		Expect(rt.Kill(ctx, id, syscall.SIGKILL)).To(MatchError(ar.ErrNotRunning))
	})

	It("plays scripted health transitions, one per look", func() {
		id := provision("scripted")
		Expect(rt.Start(ctx, id)).To(Succeed())
		crash := &ar.Exit{Code: 2, At: at}
		Expect(rt.Script(id, ar.Step{Health: ar.Starting}, ar.Step{Health: ar.Connected},
			ar.Step{Health: ar.Exited, Exit: crash})).To(Succeed())
		var seen []ar.Health
		for range 4 {
			seen = append(seen, healthOf(rt, id)())
		}
		Expect(seen).To(Equal([]ar.Health{ar.Starting, ar.Connected, ar.Exited, ar.Exited}))
		Expect(rt.Wait(ctx, id)).To(Equal(*crash))

		Expect(rt.Transition(id, ar.Step{Health: ar.Connected})).To(Succeed())
		Expect(healthOf(rt, id)()).To(Equal(ar.Connected))
	})

	It("keeps pushed log lines, seeded before provisioning too, and redacts secrets", func() {
		rt.PushLog("chatty", "early line")
		id := provision("chatty")
		rt.PushLog(id, "token="+secretValue, "last line")
		Expect(rt.Logs(ctx, id, ar.AllLines)).To(Equal([]string{"early line", "token=" + ar.Redacted, "last line"}))
		Expect(rt.Logs(ctx, id, 1)).To(Equal([]string{"last line"}))
		Expect(rt.Logs(ctx, id, 0)).To(BeEmpty())
	})

	It("answers Recover with Adopted, an empty fleet being an empty list, never Ephemeral", func() {
		rec, err := rt.Recover(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(rec).To(Equal(ar.Adopted{IDs: []ar.UnitID{}}))
		provision("b")
		provision("a")
		rec, err = rt.Recover(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(rec).To(Equal(ar.Adopted{IDs: []ar.UnitID{"a", "b"}}))
	})

	It("checks the allowlist, and answers NotFound, Remove and Close honestly", func() {
		_, err := rt.Provision(ctx, ar.UnitSpec{ID: "greedy", Args: []string{"${HOME}"}})
		var denied *ar.DisallowedEnvError
		Expect(errors.As(err, &denied)).To(BeTrue(), "got %v", err)
		Expect(denied.Names).To(Equal([]string{"HOME"}))
		Expect(rt.List(ctx)).To(BeEmpty())

		Expect(rt.Start(ctx, "nope")).To(MatchError(ar.ErrNotFound))
		Expect(second(rt.Logs(ctx, "nope", 1))).To(MatchError(ar.ErrNotFound))
		id := provision("gone")
		Expect(second(rt.Wait(ctx, id))).To(MatchError(ar.ErrNotRunning))
		Expect(rt.Start(ctx, id)).To(Succeed())
		Expect(rt.Remove(ctx, id)).To(Succeed())
		Expect(second(rt.Health(ctx, id))).To(MatchError(ar.ErrNotFound))
		Expect(rt.Close()).To(Succeed())
		Expect(second(rt.Recover(ctx))).To(MatchError(ar.ErrClosed))
	})
})

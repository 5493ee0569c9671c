package conformance_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/conformance"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedruntime"
)

// notApplicableToReferenceCore lists the catalog scenarios the reference Core cannot play, with
// the reason. It is empty: every scenario that tests a Core passes.
var notApplicableToReferenceCore = map[string]string{}

// referenceCore starts an in-process reference Core on loopback with a fresh store and a virtual
// clock, and one registered device.
func referenceCore() (*core.Core, *clock.Fake, string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	clk := clock.NewFake()
	base := "http://" + ln.Addr().String()
	c, err := core.Open(core.Config{DataFile: filepath.Join(GinkgoT().TempDir(), "core.db"), PublicURL: base, Clock: clk})
	Expect(err).NotTo(HaveOccurred())
	Expect(c.AddDevice("runtime", "synthetic-contract-credential")).To(Succeed())
	srv := &http.Server{Handler: c.Handler()}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	DeferCleanup(func() {
		Expect(c.Close()).To(Succeed())
		_ = srv.Close()
		<-done
	})
	return c, clk, base + proto.APIPrefix
}

var _ = Describe("core: reference", Label("core"), func() {
	for _, sc := range catalog.Scenarios {
		if !sc.Tests.Covers(scenarios.SideCore) {
			continue
		}
		It(sc.ID, Label(append(append([]string{}, sc.Labels...), "core")...), func(ctx SpecContext) {
			c, clk, url := referenceCore()
			ctx2, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			cfg := scriptedruntime.Config{ServerURL: url,
				Driver: &conformance.RefCoreDriver{Core: c, Clock: clk, DeviceID: "runtime"}, Seed: fmt.Sprint(GinkgoRandomSeed())}
			if sc.HasFaults() {
				// The fault relay sits between the scripted Runtime and Core, on Core's clock.
				relay := &runner.Relay{Seed: cfg.Seed}
				DeferCleanup(relay.Close)
				base, err := relay.Start(ctx2, url)
				Expect(err).NotTo(HaveOccurred())
				relay.Follow(clk)
				cfg.ServerURL, cfg.Faults = base, relay
			}
			res := scriptedruntime.Play(ctx2, sc, cfg)
			if why, ok := notApplicableToReferenceCore[sc.ID]; ok {
				Expect(res.Verdict).To(Equal(scenarios.NotApplicable), "%s\n(listed as not applicable: %s)", res, why)
				return
			}
			Expect(res.Verdict).To(Equal(scenarios.Pass), "%s", res)
		})
	}
})

package fault_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/proto"
)

// run plays the same frames through a relay with probabilistic rules in both directions and
// returns what each side received and the events, without their times.
func playSeeded(seed uint64) (toCore, toRuntime []string, events []string, relaySeed uint64, logs string) {
	r := newRig(seed,
		fault.Rule{Name: "lossy", Match: fault.Match{Direction: fault.RuntimeToCore, Type: proto.TypeDelta, Probability: 0.4}, Action: fault.Drop()},
		fault.Rule{Name: "echo", Match: fault.Match{Direction: fault.CoreToRuntime, Type: proto.TypePromptCancel, Probability: 0.3}, Action: fault.Duplicate(1)},
		fault.Rule{Name: "shuffle", Match: fault.Match{Direction: fault.RuntimeToCore, Type: proto.TypeDelta, Probability: 0.2}, Action: fault.Reorder()},
	)
	defer r.close()
	rt, core := r.connect()
	// Both directions at once: the draws of one direction must not depend on the other's timing.
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		for i := 1; i <= 40; i++ {
			send(rt, delta("run", uint64(i)))
		}
		send(rt, frame(proto.TypeDone, "run", &proto.DonePayload{}))
	}()
	for i := 1; i <= 40; i++ {
		send(core, frame(proto.TypePromptCancel, "run", &proto.PromptCancelPayload{DeliveryID: fmt.Sprint(i)}))
	}
	send(core, frame(proto.TypeExecutionRelease, "prepare", &proto.ExecutionReleasePayload{Handle: "h"}))
	<-done
	for {
		f := next(core)
		toCore = append(toCore, string(f))
		if envType(f) == proto.TypeDone {
			break
		}
	}
	for {
		f := next(rt)
		toRuntime = append(toRuntime, string(f))
		if envType(f) == proto.TypeExecutionRelease {
			break
		}
	}
	// Events are compared per direction: the two directions interleave as the scheduler pleases.
	for _, dir := range []fault.Direction{fault.RuntimeToCore, fault.CoreToRuntime} {
		for _, e := range r.relay.Events() {
			if e.Direction == dir {
				events = append(events, fmt.Sprintf("%s %s %s %s", e.Direction, e.Rule, e.Action, e.Detail))
			}
		}
	}
	return toCore, toRuntime, events, r.relay.Seed(), r.logs.String()
}

var _ = Describe("seeded random choices", Label("seed"), func() {
	It("reproduce a run exactly with the same seed, and differ with another", func() {
		c1, r1, e1, s1, _ := playSeeded(20260101)
		c2, r2, e2, s2, _ := playSeeded(20260101)
		Expect(s1).To(Equal(uint64(20260101)))
		Expect(s2).To(Equal(s1))
		Expect(c2).To(Equal(c1), "Core received something else with the same seed")
		Expect(r2).To(Equal(r1), "the Runtime received something else with the same seed")
		Expect(e2).To(Equal(e1))
		Expect(len(c1)).To(BeNumerically("<", 41), "some deltas were dropped")
		Expect(len(r1)).To(BeNumerically(">", 41), "some cancels were duplicated")

		c3, r3, _, _, _ := playSeeded(99)
		Expect(c3).NotTo(Equal(c1))
		Expect(r3).NotTo(Equal(r1))
	})

	It("chooses a seed when none is given, logs it, and the logged seed reproduces the run", func() {
		c1, r1, _, chosen, logs := playSeeded(0)
		Expect(chosen).NotTo(BeZero())
		Expect(logs).To(ContainSubstring(fmt.Sprintf("seed=%d", chosen)))
		Expect(strings.Count(logs, "seed chosen at random")).To(Equal(1))
		c2, r2, _, _, _ := playSeeded(chosen)
		Expect(c2).To(Equal(c1))
		Expect(r2).To(Equal(r1))
	})

	It("takes the schedule's seed when Options give none", func() {
		relay, err := fault.New("http://127.0.0.1:1/api/v1", &fault.Schedule{Seed: 42}, fault.Options{})
		Expect(err).NotTo(HaveOccurred())
		Expect(relay.Seed()).To(Equal(uint64(42)))
		relay.Close()
		relay, err = fault.New("http://127.0.0.1:1/api/v1", &fault.Schedule{Seed: 42}, fault.Options{Seed: 7})
		Expect(err).NotTo(HaveOccurred())
		Expect(relay.Seed()).To(Equal(uint64(7)))
		relay.Close()
	})
})

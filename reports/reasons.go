package reports

import (
	"fmt"

	"github.com/wirecheck/wirecheck/scenarios"
)

// Reasons says why the run is not certified, in plain words, the most fundamental first; nil when
// it is certified. A heartbeat that does not offer kind contract comes first: every scenario runs
// on that kind, so passing the few that need nothing of it proves nothing. Then the cases that
// fail the run, by outcome; then a run with nothing applicable; last, a Runtime that sent no
// heartbeat at all (usually the consequence of the failures before it).
//
//	kind contract is not advertised (a certificate requires it)
//	2 failed
//	no applicable scenario ran
func (r *Run) Reasons() []string {
	var why []string
	contract := r.contractReason()
	if r.contractDenied() {
		why = append(why, contract)
	}
	s := r.Summary()
	add := func(n int, what string) {
		if n > 0 {
			why = append(why, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(s.Fail-s.ExpectedFailures, "failed")
	add(s.UnexpectedPasses, "known failing passed")
	add(s.Inconclusive, "inconclusive")
	add(s.HarnessError, plural(s.HarnessError, "harness error", "harness errors"))
	if s.Applicable == 0 {
		why = append(why, "no applicable scenario ran")
	}
	if contract != "" && !r.contractDenied() {
		why = append(why, contract)
	}
	return why
}

// contractReason is why the declared profile cannot be certified, or "" when kind contract is
// advertised and available or no Runtime was under test (a run that only tested a Core has no
// heartbeat to read).
func (r *Run) contractReason() string {
	if !r.runtimeUnderTest() {
		return ""
	}
	p := r.Profile
	kind := kindOf(p)
	switch {
	case !p.Known && p.Problem != "":
		return fmt.Sprintf("the first heartbeat is invalid, so kind %s is unknown (a certificate requires it)", kind)
	case !p.Known:
		return fmt.Sprintf("no heartbeat, so kind %s is unknown (a certificate requires it)", kind)
	case !p.Advertised:
		return fmt.Sprintf("kind %s is not advertised (a certificate requires it)", kind)
	case !p.Available:
		return fmt.Sprintf("kind %s is advertised as unavailable (a certificate requires it available)", kind)
	}
	return ""
}

// contractDenied: the daemon's own heartbeat says it does not offer kind contract (it left the
// kind out, declared it unavailable, or was invalid). No heartbeat at all denies nothing: the
// daemon may never have been reached.
func (r *Run) contractDenied() bool {
	return r.contractReason() != "" && (r.Profile.Known || r.Profile.Problem != "")
}

// runtimeUnderTest: some case played Core against a Runtime, whose heartbeat the profile reads.
func (r *Run) runtimeUnderTest() bool {
	for _, c := range r.Cases {
		if c.Result != nil && c.Result.Played == scenarios.SideCore {
			return true
		}
	}
	return false
}

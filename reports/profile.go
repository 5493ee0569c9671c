package reports

import (
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/scenarios"
)

// ContractKind is the agent kind a certifiable Runtime registers for scenarios to drive.
const ContractKind = "contract"

// Profile is the capability profile the daemon declared for kind `contract` in its first
// heartbeat. The zero value is an unknown profile: the daemon never connected, or never sent a
// valid heartbeat.
type Profile = scenarios.Profile

// ProfileFromHeartbeat reads a profile from the bytes of a heartbeat frame (the whole envelope,
// as it crossed the wire), as the scripted Core read it (scenarios.ReadHeartbeat). A frame that
// is not a valid heartbeat gives an unknown profile whose Problem names the rule it broke.
func ProfileFromHeartbeat(frame []byte) Profile {
	_, p, _ := scenarios.ReadHeartbeat(frame, ContractKind)
	return p
}

// DetectProfile returns the profile the daemon declared, read from the first heartbeat of each
// case's transcript (cases in id order), for a runner that does not keep the heartbeat itself: the
// widest declaration among them (the first of equals). A daemon declares one profile; the
// reference, played where a scenario excludes a capability, withholds it there, and that case's
// narrower heartbeat must not stand for the run (nor make two shards of one run disagree). It
// returns the zero Profile when no transcript holds a heartbeat.
func DetectProfile(cases []Case) Profile {
	var widest Profile
	found := false
	for _, c := range sortedCases(cases) {
		if c.Result == nil || c.Result.Played != scenarios.SideCore {
			continue
		}
		for _, e := range c.Result.Transcript {
			if e.Dir == scenarios.RuntimeToCore && e.Type == "heartbeat" {
				p := ProfileFromHeartbeat([]byte(e.Frame))
				if !found || len(p.Supported) > len(widest.Supported) {
					widest, found = p, true
				}
				break
			}
		}
	}
	return widest
}

// describe renders the profile as the first part of the profile line.
func describe(p Profile) string {
	switch {
	case !p.Known && p.Problem != "":
		return "profile: unknown (the first heartbeat is invalid: " + p.Problem + ")"
	case !p.Known:
		return "profile: unknown (no heartbeat)"
	case !p.Advertised:
		return fmt.Sprintf("profile: kind %s not advertised", kindOf(p))
	}
	s := "profile: " + kindOf(p)
	if !p.Available {
		s += " (unavailable)"
	}
	return s + " [" + strings.Join(p.Supported, ", ") + "]"
}

// kindOf is the kind a profile is of; the zero Profile's is ContractKind.
func kindOf(p Profile) string {
	if p.Kind == "" {
		return ContractKind
	}
	return p.Kind
}

// ProfileLine is the one line at the top of every report: the declared profile and whether every
// applicable scenario passed (a known-failing case that passed is not counted as passed: it fails
// the run), e.g.
//
//	profile: contract [preparation, environment_none, streaming] — 71/71 applicable passed, 4 not applicable — CERTIFIED
//	profile: contract [preparation] — 69/71 applicable passed, 4 not applicable — NOT CERTIFIED: 2 failed
//	profile: kind contract not advertised — 17/17 applicable passed, 55 not applicable — NOT CERTIFIED: kind contract is not advertised (a certificate requires it)
//
// The reasons after NOT CERTIFIED are Reasons, in that order.
func (r *Run) ProfileLine() string {
	return r.profileLine(r.Summary())
}

func (r *Run) profileLine(s Summary) string {
	parts := []string{fmt.Sprintf("%d/%d applicable passed", s.Pass-s.UnexpectedPasses, s.Applicable)}
	if s.ExpectedFailures > 0 {
		parts = append(parts, fmt.Sprintf("%d known failing", s.ExpectedFailures))
	}
	parts = append(parts, fmt.Sprintf("%d not applicable", s.NotApplicable))
	return describe(r.Profile) + " — " + strings.Join(parts, ", ") + " — " + r.status()
}

// status is "CERTIFIED" or "NOT CERTIFIED: <why>".
func (r *Run) status() string {
	why := r.Reasons()
	if len(why) == 0 {
		return "CERTIFIED"
	}
	return "NOT CERTIFIED: " + strings.Join(why, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Package catalogsample picks a small, representative part of a scenario catalog for tests whose
// claim is about what is done with results (reports, bundles, shards, merges), not about the
// verdicts themselves: the gate (`make check-runtime-contract`) plays every scenario in every
// pairing, so such a test needs the catalog's variety, not each of its scenarios.
//
// The variety is spelt out as features, and the sample covers every feature the scenarios given
// have: each family (the first segment of the ID), each label, each step kind, each frame type in
// each direction, a handshake override, a changed bootstrap answer, a capability that makes the
// scenario not applicable when declared, a kind it needs advertised unavailable, and each side a
// scenario tests. A new step kind, frame type or family in the catalog is sampled without anyone
// editing a list.
package catalogsample

import (
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/scenarios"
)

// Features names what of the catalog's variety one scenario shows.
func Features(sc *scenarios.Scenario) []string {
	family, _, _ := strings.Cut(sc.ID, "/")
	fs := []string{"family:" + family, "tests:" + string(sc.Tests)}
	for _, l := range sc.Labels {
		fs = append(fs, "label:"+l)
	}
	for _, c := range sc.Excludes {
		fs = append(fs, "excludes:"+c)
	}
	if len(sc.UnavailableKinds) > 0 {
		fs = append(fs, "unavailable-kinds")
	}
	if sc.Handshake != nil {
		fs = append(fs, "handshake")
	}
	if sc.BootstrapAnswer != nil {
		fs = append(fs, "bootstrap-answer")
	}
	for _, st := range sc.Steps {
		fs = append(fs, "step:"+string(st.Kind))
		for _, f := range st.Frames() {
			if f.Frame != nil {
				fs = append(fs, "frame:"+string(f.Kind)+":"+f.Frame.Type)
			}
		}
	}
	slices.Sort(fs)
	return slices.Compact(fs)
}

// Cover returns a small subset of scs, in their order, that shows every feature any of them
// shows: greedily, the scenario that adds the most features not yet shown, the first in scs order
// on a tie (so the sample of a catalog is always the same).
func Cover(scs []*scenarios.Scenario) []*scenarios.Scenario {
	features := make([][]string, len(scs))
	missing := map[string]bool{}
	for i, sc := range scs {
		features[i] = Features(sc)
		for _, f := range features[i] {
			missing[f] = true
		}
	}
	picked := make([]bool, len(scs))
	for len(missing) > 0 {
		best, gain := -1, 0
		for i := range scs {
			n := 0
			for _, f := range features[i] {
				if missing[f] {
					n++
				}
			}
			if !picked[i] && n > gain {
				best, gain = i, n
			}
		}
		picked[best] = true
		for _, f := range features[best] {
			delete(missing, f)
		}
	}
	var out []*scenarios.Scenario
	for i, sc := range scs {
		if picked[i] {
			out = append(out, sc)
		}
	}
	return out
}

// IDs are the scenarios' IDs.
func IDs(scs []*scenarios.Scenario) []string {
	out := make([]string, len(scs))
	for i, sc := range scs {
		out[i] = sc.ID
	}
	return out
}

package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/scenarios"
)

// CheckVerdicts checks that a bundle's report.json says what its journals hold (every file of
// journals/, whatever the manifest lists: journal.VerifyBundle judges the files themselves). See
// checkVerdicts.
func CheckVerdicts(dir string) []journal.Problem {
	report, err := os.ReadFile(filepath.Join(dir, BundleJSON))
	if err != nil {
		return []journal.Problem{disagreement(BundleJSON, "cannot be read: %v", unwrapPathErr(err))}
	}
	journals := map[string][]byte{}
	entries, _ := os.ReadDir(filepath.Join(dir, journal.BundleDir)) // none: every case says so below
	for _, e := range entries {
		if e.Type().IsRegular() {
			p := path.Join(journal.BundleDir, e.Name())
			if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
				journals[p] = data
			}
		}
	}
	return checkVerdicts(report, journals)
}

// caseKey is a case as a journal's header names it.
type caseKey struct {
	scenario string
	played   scenarios.Side
}

// recorded is what a case's journal holds.
type recorded struct {
	file       string
	verdict    string // its assertion's; "" without one
	transcript []scenarios.Exchange
}

// checkVerdicts compares report (report.json's bytes) with journals (bundle path → bytes): every
// case has exactly one journal (found by the scenario and side its header names) and its verdict
// is the journal's assertion's; every journal has its case; and what the report concludes (the
// profile, ok, exit_code, profile_line, reasons, causes, summary, each case's outcome and ok) and
// each case's transcript are what WriteJSON writes for the report's cases with the journals'
// verdicts and transcripts and the profile DetectProfile reads from them. The known-failing list
// is the report's own: no journal holds it.
func checkVerdicts(report []byte, journals map[string][]byte) []journal.Problem {
	run, _, err := decodeJSON(bytes.NewReader(report))
	if err != nil {
		return []journal.Problem{disagreement(BundleJSON, "%v", err)}
	}
	var probs []journal.Problem
	byCase := map[caseKey]recorded{}
	for _, p := range slices.Sorted(maps.Keys(journals)) {
		recs, _ := journal.Read(bytes.NewReader(journals[p])) // a malformed journal: journal.Verify says how
		if len(recs) == 0 || recs[0].Header == nil {
			continue // not a journal; its case says it has none
		}
		h := recs[0].Header
		k := caseKey{h.Scenario, scenarios.Side(h.Played)}
		if other, ok := byCase[k]; ok {
			probs = append(probs, disagreement(p, "a second journal of %s (played %s), after %s", h.Scenario, h.Played, other.file))
			continue
		}
		r := recorded{file: p, transcript: journal.Transcript(recs)}
		for _, rec := range recs {
			if rec.Assertion != nil {
				r.verdict = rec.Assertion.Verdict
			}
		}
		byCase[k] = r
	}
	truth := *run
	truth.Cases = make([]Case, len(run.Cases))
	held := map[caseKey]bool{}
	for i, c := range run.Cases {
		res := *c.Result
		truth.Cases[i] = c
		truth.Cases[i].Result = &res
		k := caseKey{res.Scenario, res.Played}
		held[k] = true
		r, ok := byCase[k]
		switch {
		case !ok:
			probs = append(probs, disagreement(BundleJSON, "case %s (played %s) has no journal in %s/ to check its verdict %s against", res.Scenario, res.Played, journal.BundleDir, res.Verdict))
			continue
		case r.verdict == "":
			probs = append(probs, disagreement(BundleJSON, "case %s (played %s): its journal %s records no verdict (no assertion record) to check its verdict %s against", res.Scenario, res.Played, r.file, res.Verdict))
		case r.verdict != string(res.Verdict):
			probs = append(probs, disagreement(BundleJSON, "case %s (played %s): verdict %s, but its journal %s records %s", res.Scenario, res.Played, res.Verdict, r.file, r.verdict))
		}
		if r.verdict != "" {
			res.Verdict = scenarios.Verdict(r.verdict)
		}
		res.Transcript = r.transcript
	}
	for _, k := range slices.SortedFunc(maps.Keys(byCase), func(a, b caseKey) int { return strings.Compare(byCase[a].file, byCase[b].file) }) {
		if !held[k] {
			probs = append(probs, disagreement(byCase[k].file, "a journal of %s (played %s), which %s does not hold", k.scenario, k.played, BundleJSON))
		}
	}
	truth.Profile = DetectProfile(truth.Cases)
	return append(probs, conclusions(report, &truth)...)
}

// conclusions lists what report concludes otherwise than WriteJSON does for truth: the run's
// verdict in one line, every other member that differs by name, and each case's members that
// differ (its verdict is said already).
func conclusions(report []byte, truth *Run) []journal.Problem {
	var b bytes.Buffer
	if err := WriteJSON(&b, truth); err != nil {
		return []journal.Problem{disagreement(BundleJSON, "cannot be rendered again: %v", err)}
	}
	var got, want map[string]json.RawMessage
	if json.Unmarshal(report, &got) != nil || json.Unmarshal(b.Bytes(), &want) != nil {
		return []journal.Problem{disagreement(BundleJSON, "not a JSON object")}
	}
	var probs []journal.Problem
	verdict := func(m map[string]json.RawMessage) string {
		return fmt.Sprintf("ok %s, exit_code %s, profile_line %s", m["ok"], m["exit_code"], m["profile_line"])
	}
	if g, w := verdict(got), verdict(want); g != w {
		probs = append(probs, disagreement(BundleJSON, "the run's verdict is %s, but the journals' verdicts give %s", g, w))
	}
	if !sameJSON(got["profile"], want["profile"]) {
		probs = append(probs, disagreement(BundleJSON, "profile is %s, but the first heartbeat in the journals declares %s", compact(got["profile"]), compact(want["profile"])))
	}
	var others []string
	for _, m := range slices.Sorted(maps.Keys(want)) {
		switch m {
		case "ok", "exit_code", "profile_line", "profile", "cases":
			continue
		}
		if !sameJSON(got[m], want[m]) {
			others = append(others, m)
		}
	}
	if len(others) > 0 {
		probs = append(probs, disagreement(BundleJSON, "%s %s not what the journals' verdicts give", strings.Join(others, ", "), plural(len(others), "is", "are")))
	}
	var gotCases, wantCases []map[string]json.RawMessage
	_ = json.Unmarshal(got["cases"], &gotCases) // decodeJSON read them
	_ = json.Unmarshal(want["cases"], &wantCases)
	for i := range min(len(gotCases), len(wantCases)) {
		g, w := gotCases[i], wantCases[i]
		if !sameJSON(g["verdict"], w["verdict"]) {
			continue // said, with both verdicts
		}
		var members []string
		for _, m := range slices.Sorted(maps.Keys(w)) {
			if !sameJSON(g[m], w[m]) {
				members = append(members, m)
			}
		}
		if len(members) > 0 {
			var id, played string
			_ = json.Unmarshal(w["id"], &id) // WriteJSON wrote strings
			_ = json.Unmarshal(w["played"], &played)
			probs = append(probs, disagreement(BundleJSON, "case %s (played %s): %s %s not what its journal gives", id, played,
				strings.Join(members, ", "), plural(len(members), "is", "are")))
		}
	}
	return probs
}

func disagreement(file, format string, args ...any) journal.Problem {
	return journal.Problem{File: file, Record: -1, Kind: journal.Disagrees, Detail: fmt.Sprintf(format, args...)}
}

// sameJSON compares two JSON values as values: member order and escaping are the writer's.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

func compact(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

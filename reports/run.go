package reports

import (
	"errors"
	"fmt"
	"time"

	"github.com/wirecheck/wirecheck/scenarios"
)

// Run is everything a report says about one certification run. The writers read it and never
// change it; every time they print comes from it (Started, Finished, each Result's Duration and
// transcript offsets), so the same Run always renders to the same bytes.
type Run struct {
	Tool        string // the wirecheck build, e.g. "wirecheck 0.3.0"
	WireVersion string // proto.Version the suite speaks
	// Target says what was certified, e.g. "command: ./mydaemon --core {core_url}",
	// "image: localhost/x:1" or "reference runtime (in process)".
	Target string
	Seed   string
	// CatalogDigest identifies the catalog the run played (certify.CatalogDigest); Clock is
	// "virtual" (the reference in process) or "real". Both go into every journal's header.
	CatalogDigest string
	Clock         string
	Started       time.Time
	Finished      time.Time
	// Profile is what the daemon declared for kind `contract` in its first heartbeat; see
	// ProfileFromHeartbeat and DetectProfile.
	Profile   Profile
	Selection Selection
	// Shard is set when the run played one share of the selection, or merged all shares.
	Shard *Shard
	Cases []Case
	// Redact lists secret values (credentials, tokens) that must never appear in a report. Every
	// string of the model is cleaned of them (and of their JSON-escaped forms) before any writer
	// renders it. The list itself is never written.
	Redact []string
	// SpecDirs are directories holding the files the scenarios cite (the spec's
	// runtime-protocol.md, protocol-facts.md, …, and the project's docs/ for contract-harness.md);
	// a file is read from the first that holds it. When set, the HTML report quotes every section
	// its cases cite and links each reference to its quote; a reference whose file or heading is
	// not there is shown unlinked, saying why.
	SpecDirs []string
	// SpecBase, when SpecDirs is not set, is prepended to a spec reference like
	// "runtime-protocol.md#anchor" to make its link in the HTML report (e.g. where the spec is
	// published). With neither, only references that already are URLs are links: a report never
	// links to what it cannot vouch for.
	SpecBase string
}

// Selection records which scenarios the run was asked to play.
type Selection struct {
	Run          []string // --run patterns (empty: all)
	Skip         []string // --skip patterns
	Labels       string   // the label filter expression, as given
	KnownFailing []string // the ids listed in --known-failing
}

// Case is one scenario's result within a run.
type Case struct {
	Result *scenarios.Result
	// KnownFailing: the scenario is listed in --known-failing, so a fail is expected and an
	// unexpected pass is itself a failure of the run (the list is stale: remove the entry).
	KnownFailing bool
	// Journal is the case's journal as a bundle already holds it (ReadBundle): a bundle written
	// from this run keeps it byte for byte, its signature with it, instead of writing it anew
	// (merge, certify --resume).
	Journal []byte
}

// Outcome is how a case counts toward certification: its verdict, read with KnownFailing.
type Outcome string

const (
	Passed         Outcome = "passed"
	Failed         Outcome = "failed"
	ExpectedFail   Outcome = "expected_fail"   // known failing, and it failed
	UnexpectedPass Outcome = "unexpected_pass" // known failing, yet it passed
	Inconclusive   Outcome = "inconclusive"
	NotApplicable  Outcome = "not_applicable"
	HarnessError   Outcome = "harness_error"
)

// Outcome returns how the case counts. A known-failing case that is inconclusive, not applicable
// or a harness error counts as that: only a fail is the failure the list expects.
func (c Case) Outcome() Outcome {
	if c.Result == nil {
		return HarnessError
	}
	switch c.Result.Verdict {
	case scenarios.Pass:
		if c.KnownFailing {
			return UnexpectedPass
		}
		return Passed
	case scenarios.Fail:
		if c.KnownFailing {
			return ExpectedFail
		}
		return Failed
	case scenarios.Inconclusive:
		return Inconclusive
	case scenarios.NotApplicable:
		return NotApplicable
	}
	return HarnessError // harness_error, and any verdict this package does not know
}

// OK reports whether the case allows certification: it passed, failed as listed, or does not
// apply to the declared profile.
func (c Case) OK() bool {
	switch c.Outcome() {
	case Passed, ExpectedFail, NotApplicable:
		return true
	}
	return false
}

// Summary counts a run's cases.
type Summary struct {
	Total      int
	Applicable int // every case but the not applicable ones
	// By verdict; a nil Result counts as a harness error.
	Pass, Fail, Inconclusive, NotApplicable, HarnessError int
	// Of the known-failing cases: those that failed (also counted in Fail) and those that passed
	// (also counted in Pass).
	ExpectedFailures, UnexpectedPasses int
}

// Summary counts the cases by verdict.
func (r *Run) Summary() Summary {
	var s Summary
	for _, c := range r.Cases {
		s.Total++
		switch c.Outcome() {
		case Passed:
			s.Pass++
		case UnexpectedPass:
			s.Pass++
			s.UnexpectedPasses++
		case Failed:
			s.Fail++
		case ExpectedFail:
			s.Fail++
			s.ExpectedFailures++
		case Inconclusive:
			s.Inconclusive++
		case NotApplicable:
			s.NotApplicable++
		case HarnessError:
			s.HarnessError++
		}
	}
	s.Applicable = s.Total - s.NotApplicable
	return s
}

// OK is true only if every applicable case passed, the known-failing cases failed as expected,
// no harness error occurred, at least one applicable case ran (a run that played nothing certifies
// nothing), and, when a Runtime was under test, its heartbeat advertised kind contract as
// available: no certificate without the kind every scenario runs on. Reasons says why not.
func (r *Run) OK() bool { return len(r.Reasons()) == 0 }

// Exit codes of a certification run.
const (
	ExitCertified    = 0 // OK
	ExitNotCertified = 1 // the implementation failed, passed unexpectedly, was inconclusive, lacks kind contract, or nothing applicable ran
	ExitHarnessError = 2 // no implementation failure, but the suite or the machine failed: the verdict is incomplete
)

// ExitCode is the process exit status `wirecheck certify` ends with: 0 only when OK; 2 when harness
// errors leave the verdict incomplete and nothing the daemon did is to blame (no failure, no
// inconclusive case, no stale known-failing entry, and no heartbeat that denies kind contract); 1
// otherwise.
func (r *Run) ExitCode() int {
	if r.OK() {
		return ExitCertified
	}
	s := r.Summary()
	blamed := s.Fail > s.ExpectedFailures || s.UnexpectedPasses > 0 || s.Inconclusive > 0 || r.contractDenied()
	if s.HarnessError > 0 && !blamed {
		return ExitHarnessError
	}
	return ExitNotCertified
}

// validate rejects what no writer can render.
func (r *Run) validate() error {
	if r == nil {
		return errors.New("reports: nil Run")
	}
	for i, c := range r.Cases {
		if c.Result == nil {
			return fmt.Errorf("reports: case %d has no Result", i)
		}
	}
	return nil
}

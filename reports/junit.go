package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/scenarios"
)

// The JUnit XML subset Jenkins (junit plugin) and GitLab (junit report artifacts) both read:
// testsuites > testsuite > testcase with failure / error / skipped / system-out, and properties on
// each testsuite. Nothing else is emitted.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
	Skipped   *junitProblem `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes the run as JUnit XML: one <testsuite name="wirecheck.<family>"> per top-level
// id segment, one <testcase classname="wirecheck.<family>" name="<id>"> per case.
//
//   - fail: <failure type="fail" message="reason (step N, file:line)">, the reason being the failure's
//     root cause or its message's first line; the whole message, the diff, bindings and spec
//     references in its body;
//   - a known-failing case that passed: <failure type="unexpected_pass">, since the run fails;
//   - a known-failing case that failed: <skipped message="known failing: …">, since the run does not;
//   - harness error: <error type="harness_error">;
//   - not applicable: <skipped message="requires: …">;
//   - inconclusive: <skipped message="inconclusive: …">. JUnit has no verdict for "the effect is
//     unknown": a failure would blame the implementation for what the spec itself leaves open, and
//     an error would blame the suite. The run is still not certified (see Run.OK), so CI fails on
//     the exit code while the test report shows why.
//
// Every case carries its transcript, one exchange per line, and the last output of the daemons it
// launched in <system-out>. Each testsuite's properties hold the profile line and one "cause" per
// root cause of the run ("72 × the daemon sends no Bearer header"). Untrusted text (frames from
// the daemon) is escaped by encoding/xml; characters XML cannot carry become U+FFFD.
func WriteJUnit(w io.Writer, run *Run) error {
	r, err := run.forPeople()
	if err != nil {
		return err
	}
	props := []junitProperty{
		{"profile", r.ProfileLine()},
		{"tool", r.Tool},
		{"wire_version", r.WireVersion},
		{"target", r.Target},
		{"seed", r.Seed},
	}
	if sh := r.Shard.describe(); sh != "" {
		props = append(props, junitProperty{"shard", sh})
	}
	for _, c := range r.Causes() {
		props = append(props, junitProperty{"cause", fmt.Sprintf("%d × %s", len(c.Scenarios), c.Text)})
	}
	var ts string
	if !r.Started.IsZero() {
		ts = r.Started.UTC().Format("2006-01-02T15:04:05")
	}
	doc := junitSuites{Name: "wirecheck"}
	names := caseNames(r.Cases)
	index := map[string]int{}
	var total time.Duration
	var suiteTime []time.Duration
	for i, c := range r.Cases {
		fam := family(c.Result.Scenario)
		si, ok := index[fam]
		if !ok {
			si = len(doc.Suites)
			index[fam] = si
			doc.Suites = append(doc.Suites, junitSuite{Name: "wirecheck." + fam, Timestamp: ts, Properties: props})
			suiteTime = append(suiteTime, 0)
		}
		s := &doc.Suites[si]
		jc := junitCaseOf(c, names[i], "wirecheck."+fam)
		s.Tests++
		switch {
		case jc.Failure != nil:
			s.Failures++
		case jc.Error != nil:
			s.Errors++
		case jc.Skipped != nil:
			s.Skipped++
		}
		s.Cases = append(s.Cases, jc)
		suiteTime[si] += c.Result.Duration
		total += c.Result.Duration
	}
	for i := range doc.Suites {
		s := &doc.Suites[i]
		s.Time = seconds(suiteTime[i])
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	doc.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("reports: junit: %w", err)
	}
	_, err = io.WriteString(w, "\n")
	return err
}

func junitCaseOf(c Case, name, class string) junitCase {
	res := c.Result
	jc := junitCase{Classname: class, Name: name, Time: seconds(res.Duration), SystemOut: junitOut(res)}
	f := res.Failure
	headline := failureHeadline(f)
	switch c.Outcome() {
	case Failed:
		jc.Failure = &junitProblem{Message: headline, Type: "fail", Body: failureBody(res)}
	case UnexpectedPass:
		jc.Failure = &junitProblem{Type: "unexpected_pass",
			Message: "listed as known failing, but it passed: remove it from the known-failing list"}
	case ExpectedFail:
		jc.Skipped = &junitProblem{Message: "known failing: " + headline, Body: failureBody(res)}
	case HarnessError:
		jc.Error = &junitProblem{Message: "harness error: " + headline, Type: "harness_error", Body: failureBody(res)}
	case NotApplicable:
		jc.Skipped = &junitProblem{Message: notApplicableReason(f)}
	case Inconclusive:
		jc.Skipped = &junitProblem{Message: "inconclusive: " + headline, Body: failureBody(res)}
	}
	return jc
}

// junitOut is the case's <system-out>: what it is, then its transcript.
func junitOut(res *scenarios.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s (scripted %s, seed %s)\n", res.Scenario, res.Title, res.Played, res.Seed)
	if len(res.Spec) > 0 {
		fmt.Fprintf(&b, "spec: %s\n", strings.Join(res.Spec, ", "))
	}
	b.WriteString("transcript:\n")
	b.WriteString(transcriptText(res.Transcript))
	if len(res.Daemons) > 0 {
		b.WriteString(daemonLog(res.Daemons))
	}
	return b.String()
}

// failureBody is the text inside <failure>/<error>/<skipped>: the step, the diff, the bindings.
func failureBody(res *scenarios.Result) string {
	f := res.Failure
	if f == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s", res.Scenario, stepName(f.Step))
	if f.StepDesc != "" {
		b.WriteString(": " + f.StepDesc)
	}
	if f.Pos.File != "" {
		b.WriteString("\nat " + f.Pos.String())
	}
	if f.Cause != "" {
		b.WriteString("\ncause: " + f.Cause)
	}
	b.WriteString("\n" + f.Message + "\n")
	if f.Diff != "" {
		fmt.Fprintf(&b, "\nframe (-expected +actual):\n%s\n", strings.TrimRight(f.Diff, "\n"))
	} else if f.Actual != nil {
		fmt.Fprintf(&b, "\nreceived:\n%s\n", prettyJSON(f.Actual))
	}
	if bs := sortedBindings(f.Bindings); len(bs) > 0 {
		fmt.Fprintf(&b, "\nbindings:\n  %s\n", strings.Join(bs, "\n  "))
	}
	if len(f.Missing) > 0 {
		fmt.Fprintf(&b, "\nmissing capabilities: %s\n", strings.Join(f.Missing, ", "))
	}
	if len(res.Spec) > 0 {
		fmt.Fprintf(&b, "\nspec: %s\n", strings.Join(res.Spec, ", "))
	}
	return b.String()
}

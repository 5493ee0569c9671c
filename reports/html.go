package reports

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
)

//go:embed report.html.tmpl
var htmlSource string

//go:embed report.js
var htmlScript string

// htmlScriptHash pins the one inline script in the page's Content-Security-Policy: even markup
// that slipped past escaping could run no script of its own.
var htmlScriptHash = func() string {
	sum := sha256.Sum256([]byte(htmlScript))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}()

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"diffClass": diffClass,
}).Parse(strings.Replace(htmlSource, "__SCRIPT_HASH__", htmlScriptHash, 1)))

// WriteHTML writes the run as one self-contained HTML file: no external CSS, script, font or
// image; inline styles and a small inline script (filters, expand/collapse) pinned by its hash in
// a Content-Security-Policy. At the top: the verdict, why it is not certified (Reasons), and the
// root causes (Causes) linked to their cases. Per scenario it shows a verdict badge, the title,
// spec references (linked to the cited sections quoted at the end of the page when Run.SpecDirss are
// given; see Run.SpecDirss), a sequence diagram of the frames exchanged as inline SVG (in time
// order, the fault relay's events among them; the failing step highlighted, every frame's JSON on
// hover and in the transcript below), then the failing step's reason, cause and JSON diff, the
// bindings, the seed, and each daemon's exit and last output (collapsed). Cases that need
// attention are open; the rest are one line each. Everything from the run is escaped by
// html/template: frames come from an untrusted daemon.
func WriteHTML(w io.Writer, run *Run) error {
	r, err := run.forPeople()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := htmlTemplate.Execute(&b, r.htmlView()); err != nil {
		return fmt.Errorf("reports: html: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

type htmlView struct {
	Run         *Run
	OK          bool
	ProfileLine string
	Reasons     []string // why it is not certified
	Kind        string   // the profile's kind, never empty
	Counts      []htmlCount
	Meta        []htmlPair
	Cases       []htmlCase
	Attention   []htmlCase // the cases that keep the run from certification
	Causes      []htmlCause
	Specs       []htmlSpec // the cited spec sections, when Run.SpecDirs is set
	SpecNote    string     // where spec links go, or why there are none
	Script      template.JS
}

type htmlCause struct {
	Text  string
	Cases []htmlPair // K: name, V: anchor
}

type htmlSpec struct {
	Anchor string
	specSection
}

type htmlCount struct {
	Outcome Outcome
	Label   string
	N       int
}

type htmlPair struct{ K, V string }

type htmlCase struct {
	Anchor    string
	Name      string
	Case      Case
	Outcome   Outcome
	Badge     string
	Attention bool
	Headline  string // why it needs attention, in one line
	Duration  string
	Spec      []htmlLink
	Failure   *htmlFailure
	Daemons   []htmlDaemon
	Diagram   diagram
	Exchanges []htmlExchange
}

type htmlLink struct {
	Text, Href string
	Problem    string // why a reference has no link
}

type htmlDaemon struct {
	Summary string // how it ended, and how much output follows
	Output  string
}

type htmlFailure struct {
	Where    string // "Step 3: runtime sends …" or "Before the first step"
	Pos      string
	Cause    string // the root cause, when the harness named one
	Message  string
	Diff     []string
	Expected string // shown when there is no diff
	Actual   string
	Bindings []htmlPair
	Missing  string
}

type htmlExchange struct {
	Anchor string
	At     string
	Step   int
	Dir    string
	Type   string
	Note   string
	Frame  string
	Fail   bool
}

var badges = map[Outcome]string{
	Passed: "PASS", Failed: "FAIL", ExpectedFail: "KNOWN FAIL", UnexpectedPass: "UNEXPECTED PASS",
	Inconclusive: "INCONCLUSIVE", NotApplicable: "N/A", HarnessError: "HARNESS ERROR",
}

func (r *Run) htmlView() htmlView {
	s := r.Summary()
	v := htmlView{Run: r, OK: r.OK(), ProfileLine: r.ProfileLine(), Reasons: r.Reasons(), Kind: kindOf(r.Profile),
		Script: template.JS(htmlScript)}
	v.Counts = []htmlCount{
		{Passed, "passed", s.Pass - s.UnexpectedPasses},
		{Failed, "failed", s.Fail - s.ExpectedFailures},
		{Inconclusive, "inconclusive", s.Inconclusive},
		{HarnessError, "harness error", s.HarnessError},
		{NotApplicable, "not applicable", s.NotApplicable},
		{ExpectedFail, "known failing", s.ExpectedFailures},
		{UnexpectedPass, "known failing but passed", s.UnexpectedPasses},
	}
	v.Meta = r.htmlMeta()
	specLink, specs := r.specLinker()
	v.Specs, v.SpecNote = specs, r.specNote(len(specs))

	names := caseNames(r.Cases)
	anchors := map[string]string{}
	for i, c := range r.Cases {
		anchor := fmt.Sprintf("case-%d", i+1)
		anchors[names[i]] = anchor
		hc := r.htmlCaseOf(c, names[i], anchor, specLink)
		if hc.Attention {
			v.Attention = append(v.Attention, hc)
		}
		v.Cases = append(v.Cases, hc)
	}
	for _, c := range r.Causes() {
		hc := htmlCause{Text: c.Text}
		for _, name := range c.Scenarios {
			hc.Cases = append(hc.Cases, htmlPair{name, anchors[name]})
		}
		v.Causes = append(v.Causes, hc)
	}
	return v
}

func (r *Run) htmlMeta() []htmlPair {
	var meta []htmlPair
	add := func(k, val string) {
		if val != "" {
			meta = append(meta, htmlPair{k, val})
		}
	}
	add("Target", r.Target)
	p := r.Profile
	add("Daemon version", p.DaemonVersion)
	if p.Advertised {
		avail := "available"
		if !p.Available {
			avail = "unavailable"
		}
		add("Kind", strings.TrimSpace(fmt.Sprintf("%s %s (%s)", kindOf(p), p.KindVersion, avail)))
	}
	add("Wire version", r.WireVersion)
	add("Tool", r.Tool)
	add("Seed", r.Seed)
	add("Shard", r.Shard.describe())
	if !r.Started.IsZero() {
		add("Started", r.Started.UTC().Format(time.RFC3339))
	}
	if !r.Finished.IsZero() {
		fin := r.Finished.UTC().Format(time.RFC3339)
		if !r.Started.IsZero() {
			fin += fmt.Sprintf(" (%s)", r.Finished.Sub(r.Started).Round(time.Millisecond))
		}
		add("Finished", fin)
	}
	add("Run", strings.Join(r.Selection.Run, " "))
	add("Skip", strings.Join(r.Selection.Skip, " "))
	add("Labels", r.Selection.Labels)
	add("Known failing", strings.Join(r.Selection.KnownFailing, " "))
	return meta
}

func (r *Run) htmlCaseOf(c Case, name, anchor string, specLink func(string) htmlLink) htmlCase {
	res := c.Result
	hc := htmlCase{Anchor: anchor, Name: name, Case: c, Outcome: c.Outcome(), Badge: badges[c.Outcome()],
		Duration: humanDuration(res.Duration), Diagram: layoutSequence(res, anchor), Attention: !c.OK()}
	for _, ref := range res.Spec {
		hc.Spec = append(hc.Spec, specLink(ref))
	}
	if f := res.Failure; f != nil {
		name := stepName(f.Step)
		fv := &htmlFailure{Where: strings.ToUpper(name[:1]) + name[1:], Message: f.Message, Missing: strings.Join(f.Missing, ", ")}
		if f.StepDesc != "" {
			fv.Where += ": " + f.StepDesc
		}
		if f.Pos.File != "" {
			fv.Pos = f.Pos.String()
		}
		if f.Cause != "" && f.Cause != f.Message {
			fv.Cause = f.Cause
		}
		if f.Diff != "" {
			fv.Diff = strings.Split(strings.TrimRight(f.Diff, "\n"), "\n")
		} else {
			if f.Expected != nil {
				fv.Expected = prettyJSON(f.Expected)
			}
			if f.Actual != nil {
				fv.Actual = prettyJSON(f.Actual)
			}
		}
		for _, k := range sortedKeys(f.Bindings) {
			fv.Bindings = append(fv.Bindings, htmlPair{k, f.Bindings[k]})
		}
		hc.Failure = fv
	}
	for i, d := range res.Daemons {
		hc.Daemons = append(hc.Daemons, htmlDaemon{Summary: daemonSummary(i, len(res.Daemons), d) + "; " + outputWords(d.Output),
			Output: strings.Join(d.Output, "\n")})
	}
	failing := res.Failure != nil && c.Outcome() != Passed && c.Outcome() != NotApplicable
	for j, e := range res.Transcript {
		hc.Exchanges = append(hc.Exchanges, htmlExchange{
			Anchor: fmt.Sprintf("%s-x%d", anchor, j), At: offset(e.At), Step: e.Step, Dir: string(e.Dir),
			Type: e.Type, Note: e.Note, Frame: prettyFrame(e.Frame),
			Fail: failing && e.Step == res.Failure.Step,
		})
	}
	if hc.Attention {
		hc.Headline = failureHeadline(res.Failure)
		if hc.Outcome == UnexpectedPass {
			hc.Headline = "listed as known failing, but it passed"
		}
	}
	return hc
}

// diffClass colours a go-cmp diff line.
func diffClass(line string) string {
	switch {
	case strings.HasPrefix(line, "-"):
		return "del"
	case strings.HasPrefix(line, "+"):
		return "add"
	}
	return ""
}

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
// a Content-Security-Policy. Per scenario it shows a verdict badge, the title, spec references as
// links (SpecBase + "runtime-protocol.md#anchor"), a sequence diagram of the frames exchanged as
// inline SVG (the failing step highlighted, every frame's JSON on hover and in the transcript
// below), then the failing step's go-cmp diff, the bindings and the seed. Cases that need
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
	Counts      []htmlCount
	Meta        []htmlPair
	Cases       []htmlCase
	Attention   []htmlCase // the cases that keep the run from certification
	Script      template.JS
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
	Diagram   diagram
	Exchanges []htmlExchange
}

type htmlLink struct{ Text, Href string }

type htmlFailure struct {
	StepDesc string
	Pos      string
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
	v := htmlView{Run: r, OK: r.OK(), ProfileLine: r.ProfileLine(),
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
	add := func(k, val string) {
		if val != "" {
			v.Meta = append(v.Meta, htmlPair{k, val})
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
		add("Kind", strings.TrimSpace(fmt.Sprintf("%s %s (%s)", p.kind(), p.KindVersion, avail)))
	}
	add("Wire version", r.WireVersion)
	add("Tool", r.Tool)
	add("Seed", r.Seed)
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

	names := caseNames(r.Cases)
	for i, c := range r.Cases {
		res := c.Result
		anchor := fmt.Sprintf("case-%d", i+1)
		hc := htmlCase{Anchor: anchor, Name: names[i], Case: c, Outcome: c.Outcome(), Badge: badges[c.Outcome()],
			Duration: humanDuration(res.Duration), Diagram: layoutSequence(res, anchor)}
		hc.Attention = !c.OK()
		for _, ref := range res.Spec {
			hc.Spec = append(hc.Spec, htmlLink{ref, specHref(r.SpecBase, ref)})
		}
		if f := res.Failure; f != nil {
			fv := &htmlFailure{StepDesc: f.StepDesc, Pos: f.Pos.String(),
				Message: f.Message, Missing: strings.Join(f.Missing, ", ")}
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
			v.Attention = append(v.Attention, hc)
		}
		v.Cases = append(v.Cases, hc)
	}
	return v
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

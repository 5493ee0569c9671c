package reports

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/wirecheck/wirecheck/scenarios"
)

// SchemaVersion is the version of the JSON report's shape (report.schema.json). It changes only
// when a member is removed or changes meaning; new optional members keep it.
const SchemaVersion = "1"

//go:embed report.schema.json
var jsonSchema []byte

// JSONSchema returns the JSON Schema (2020-12) of the JSON report, as committed in
// reports/report.schema.json.
func JSONSchema() []byte { return append([]byte(nil), jsonSchema...) }

// The JSON report. Member names are the schema's; see report.schema.json for their meaning.
type jsonReport struct {
	SchemaVersion string        `json:"schema_version"`
	Tool          string        `json:"tool"`
	WireVersion   string        `json:"wire_version"`
	Target        string        `json:"target"`
	Seed          string        `json:"seed"`
	Started       *time.Time    `json:"started,omitempty"`
	Finished      *time.Time    `json:"finished,omitempty"`
	OK            bool          `json:"ok"`
	ExitCode      int           `json:"exit_code"`
	ProfileLine   string        `json:"profile_line"`
	Reasons       []string      `json:"reasons"`
	Causes        []jsonCause   `json:"causes"`
	Profile       jsonProfile   `json:"profile"`
	Selection     jsonSelection `json:"selection"`
	Shard         *jsonShard    `json:"shard,omitempty"`
	Summary       jsonSummary   `json:"summary"`
	Cases         []jsonCase    `json:"cases"`
}

type jsonCause struct {
	Text      string   `json:"text"`
	Count     int      `json:"count"`
	Scenarios []string `json:"scenarios"`
}

type jsonProfile struct {
	Known         bool     `json:"known"`
	Problem       string   `json:"problem,omitempty"`
	DaemonVersion string   `json:"daemon_version"`
	Kind          string   `json:"kind"`
	Advertised    bool     `json:"advertised"`
	Available     bool     `json:"available"`
	KindVersion   string   `json:"kind_version"`
	Supported     []string `json:"supported"`
	Unsupported   []string `json:"unsupported"`
}

type jsonSelection struct {
	Run          []string `json:"run"`
	Skip         []string `json:"skip"`
	Labels       string   `json:"labels"`
	KnownFailing []string `json:"known_failing"`
}

type jsonShard struct {
	Index           int    `json:"index"`
	Count           int    `json:"count"`
	Total           int    `json:"total"`
	CatalogDigest   string `json:"catalog_digest"`
	SelectionDigest string `json:"selection_digest"`
}

type jsonSummary struct {
	Total            int `json:"total"`
	Applicable       int `json:"applicable"`
	Pass             int `json:"pass"`
	Fail             int `json:"fail"`
	Inconclusive     int `json:"inconclusive"`
	NotApplicable    int `json:"not_applicable"`
	HarnessError     int `json:"harness_error"`
	ExpectedFailures int `json:"expected_failures"`
	UnexpectedPasses int `json:"unexpected_passes"`
}

type jsonCase struct {
	ID           string         `json:"id"`
	Family       string         `json:"family"`
	Title        string         `json:"title"`
	Spec         []string       `json:"spec"`
	Labels       []string       `json:"labels"`
	Played       string         `json:"played"`
	Verdict      string         `json:"verdict"`
	KnownFailing bool           `json:"known_failing"`
	Outcome      Outcome        `json:"outcome"`
	OK           bool           `json:"ok"`
	Seed         string         `json:"seed"`
	DurationMS   float64        `json:"duration_ms"`
	Started      string         `json:"started,omitempty"` // RFC 3339 wall clock of the case's start
	Failure      *jsonFailure   `json:"failure,omitempty"`
	Daemons      []jsonDaemon   `json:"daemons"`
	Transcript   []jsonExchange `json:"transcript"`
}

type jsonDaemon struct {
	Exit       string   `json:"exit"`
	Code       int      `json:"code"`
	Killed     bool     `json:"killed"`
	LeftBehind string   `json:"left_behind,omitempty"`
	Output     []string `json:"output"`
}

type jsonFailure struct {
	Step                int               `json:"step"`
	StepDescription     string            `json:"step_description"`
	File                string            `json:"file"`
	Line                int               `json:"line"`
	Message             string            `json:"message"`
	Cause               string            `json:"cause,omitempty"`
	Expected            any               `json:"expected,omitempty"`
	Actual              any               `json:"actual,omitempty"`
	Diff                string            `json:"diff,omitempty"`
	Bindings            map[string]string `json:"bindings"`
	MissingCapabilities []string          `json:"missing_capabilities"`
}

// jsonExchange is one transcript entry, in the JSON report and in the bundle's .jsonl files.
type jsonExchange struct {
	AtMS  float64 `json:"at_ms"`
	Dir   string  `json:"dir"`
	Step  int     `json:"step"`
	Type  string  `json:"type"`
	Frame string  `json:"frame,omitempty"` // the raw frame, exactly as it crossed the wire
	Note  string  `json:"note,omitempty"`
}

// WriteJSON writes the run as one JSON document that validates against report.schema.json
// (JSONSchema). Frames are kept as the raw strings that crossed the wire (a daemon may send bytes
// that are not JSON); a failure's expected and actual frames are JSON values.
func WriteJSON(w io.Writer, run *Run) error {
	r, err := run.prepared()
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r.jsonDoc()); err != nil {
		return fmt.Errorf("reports: json: %w", err)
	}
	return nil
}

func (r *Run) jsonDoc() *jsonReport {
	s := r.Summary()
	doc := &jsonReport{
		SchemaVersion: SchemaVersion,
		Tool:          r.Tool, WireVersion: r.WireVersion, Target: r.Target, Seed: r.Seed,
		OK: r.OK(), ExitCode: r.ExitCode(), ProfileLine: r.ProfileLine(), Reasons: nonNil(r.Reasons()), Causes: []jsonCause{},
		Profile: jsonProfile{
			Known: r.Profile.Known, Problem: r.Profile.Problem, DaemonVersion: r.Profile.DaemonVersion,
			Kind: kindOf(r.Profile), Advertised: r.Profile.Advertised, Available: r.Profile.Available,
			KindVersion: r.Profile.KindVersion,
			Supported:   nonNil(r.Profile.Supported), Unsupported: nonNil(r.Profile.Unsupported),
		},
		Selection: jsonSelection{
			Run: nonNil(r.Selection.Run), Skip: nonNil(r.Selection.Skip), Labels: r.Selection.Labels,
			KnownFailing: nonNil(r.Selection.KnownFailing),
		},
		Summary: jsonSummary(s),
		Cases:   []jsonCase{},
	}
	if sh := r.Shard; sh != nil {
		doc.Shard = &jsonShard{Index: sh.Index, Count: sh.Count, Total: sh.Total, CatalogDigest: sh.Catalog, SelectionDigest: sh.Selection}
	}
	if !r.Started.IsZero() {
		t := r.Started.UTC()
		doc.Started = &t
	}
	if !r.Finished.IsZero() {
		t := r.Finished.UTC()
		doc.Finished = &t
	}
	for _, c := range r.Causes() {
		doc.Causes = append(doc.Causes, jsonCause{Text: c.Text, Count: len(c.Scenarios), Scenarios: c.Scenarios})
	}
	for _, c := range r.Cases {
		res := c.Result
		jc := jsonCase{
			ID: res.Scenario, Family: family(res.Scenario), Title: res.Title,
			Spec: nonNil(res.Spec), Labels: nonNil(res.Labels), Played: string(res.Played),
			Verdict: string(res.Verdict), KnownFailing: c.KnownFailing, Outcome: c.Outcome(), OK: c.OK(),
			Seed: res.Seed, DurationMS: ms(res.Duration), Transcript: jsonTranscript(res.Transcript), Daemons: []jsonDaemon{},
		}
		if !res.Started.IsZero() {
			jc.Started = res.Started.UTC().Format(time.RFC3339Nano)
		}
		for _, d := range res.Daemons {
			jc.Daemons = append(jc.Daemons, jsonDaemon{Exit: d.Exit, Code: d.Code, Killed: d.Killed, LeftBehind: d.LeftBehind, Output: nonNil(d.Output)})
		}
		if f := res.Failure; f != nil {
			jf := &jsonFailure{
				Step: f.Step, StepDescription: f.StepDesc, File: f.Pos.File, Line: f.Pos.Line,
				Message: f.Message, Cause: f.Cause, Diff: f.Diff, Bindings: f.Bindings, MissingCapabilities: nonNil(f.Missing),
			}
			if jf.Bindings == nil {
				jf.Bindings = map[string]string{}
			}
			jf.Expected, jf.Actual = jsonValue(f.Expected), jsonValue(f.Actual)
			jc.Failure = jf
		}
		doc.Cases = append(doc.Cases, jc)
	}
	return doc
}

// jsonValue makes sure a failure's generic frame encodes; a value that does not (it should never
// happen: they are decoded JSON) is kept as its %v text.
func jsonValue(v any) any {
	if v == nil {
		return nil
	}
	if _, err := json.Marshal(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return v
}

func jsonTranscript(t []scenarios.Exchange) []jsonExchange {
	out := make([]jsonExchange, len(t))
	for i, e := range t {
		out[i] = jsonExchange{AtMS: ms(e.At), Dir: string(e.Dir), Step: e.Step, Type: e.Type, Frame: e.Frame, Note: e.Note}
	}
	return out
}

// ms is d in milliseconds, to the nanosecond: ReadJSON gives back d exactly, so a merged report
// renders every time as the shard's run did.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

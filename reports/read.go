package reports

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/scenarios"
)

// ReadJSON reads a JSON report written by WriteJSON back into a Run that renders as the run did
// (secrets were redacted before it was written, so none is left to redact). It checks that the
// report's verdict follows from its cases: its profile_line, ok and exit_code must be what the Run
// read gives, so a report edited by hand, or one this build reads differently, is refused.
func ReadJSON(r io.Reader) (*Run, error) {
	run, doc, err := decodeJSON(r)
	if err != nil {
		return nil, err
	}
	if got := run.ProfileLine(); got != doc.ProfileLine {
		return nil, fmt.Errorf("profile_line %q does not follow from the cases, which give %q", doc.ProfileLine, got)
	}
	if run.OK() != doc.OK || run.ExitCode() != doc.ExitCode {
		return nil, fmt.Errorf("ok %v, exit_code %d do not follow from the cases, which give %v, %d", doc.OK, doc.ExitCode, run.OK(), run.ExitCode())
	}
	return run, nil
}

// decodeJSON reads a JSON report into the Run it was written from, without checking that what
// it concludes follows from its cases.
func decodeJSON(r io.Reader) (*Run, *jsonReport, error) {
	var doc jsonReport
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, fmt.Errorf("not a JSON report: %w", err)
	}
	if doc.SchemaVersion != SchemaVersion {
		return nil, nil, fmt.Errorf("schema_version is %q; this build reads %q", doc.SchemaVersion, SchemaVersion)
	}
	run := &Run{
		Tool: doc.Tool, WireVersion: doc.WireVersion, Target: doc.Target, Seed: doc.Seed,
		Profile: Profile{
			Known: doc.Profile.Known, Problem: doc.Profile.Problem, DaemonVersion: doc.Profile.DaemonVersion,
			Kind: doc.Profile.Kind, Advertised: doc.Profile.Advertised, Available: doc.Profile.Available,
			KindVersion: doc.Profile.KindVersion, Supported: nilIfEmpty(doc.Profile.Supported), Unsupported: nilIfEmpty(doc.Profile.Unsupported),
		},
		Selection: Selection{Run: nilIfEmpty(doc.Selection.Run), Skip: nilIfEmpty(doc.Selection.Skip), Labels: doc.Selection.Labels,
			KnownFailing: nilIfEmpty(doc.Selection.KnownFailing)},
	}
	if doc.Started != nil {
		run.Started = *doc.Started
	}
	if doc.Finished != nil {
		run.Finished = *doc.Finished
	}
	if s := doc.Shard; s != nil {
		run.Shard = &Shard{Index: s.Index, Count: s.Count, Total: s.Total, Catalog: s.CatalogDigest, Selection: s.SelectionDigest}
	}
	for i, jc := range doc.Cases {
		if jc.ID == "" {
			return nil, nil, fmt.Errorf("cases[%d]: no id", i)
		}
		res, err := resultOf(jc)
		if err != nil {
			return nil, nil, fmt.Errorf("cases[%d] (%s): %w", i, jc.ID, err)
		}
		run.Cases = append(run.Cases, Case{Result: res, KnownFailing: jc.KnownFailing})
	}
	return run, &doc, nil
}

// resultOf is the result a JSON case was written from.
func resultOf(jc jsonCase) (*scenarios.Result, error) {
	res := &scenarios.Result{
		Scenario: jc.ID, Title: jc.Title, Spec: nilIfEmpty(jc.Spec), Labels: nilIfEmpty(jc.Labels),
		Played: scenarios.Side(jc.Played), Verdict: scenarios.Verdict(jc.Verdict), Seed: jc.Seed, Duration: fromMS(jc.DurationMS),
	}
	if jc.Started != "" {
		started, err := time.Parse(time.RFC3339Nano, jc.Started)
		if err != nil {
			return nil, fmt.Errorf("started %q is not an RFC 3339 time", jc.Started)
		}
		res.Started = started
	}
	for _, e := range jc.Transcript {
		res.Transcript = append(res.Transcript, scenarios.Exchange{At: fromMS(e.AtMS), Dir: scenarios.Direction(e.Dir), Step: e.Step,
			Type: e.Type, Frame: e.Frame, Note: e.Note})
	}
	for _, d := range jc.Daemons {
		res.Daemons = append(res.Daemons, scenarios.Daemon{Exit: d.Exit, Code: d.Code, Killed: d.Killed, LeftBehind: d.LeftBehind, Output: nilIfEmpty(d.Output)})
	}
	if f := jc.Failure; f != nil {
		res.Failure = &scenarios.Failure{
			Step: f.Step, StepDesc: f.StepDescription, Pos: scenarios.Pos{File: f.File, Line: f.Line}, Message: f.Message,
			Cause: f.Cause, Expected: f.Expected, Actual: f.Actual, Diff: f.Diff, Bindings: f.Bindings, Missing: nilIfEmpty(f.MissingCapabilities),
		}
		if len(res.Failure.Bindings) == 0 {
			res.Failure.Bindings = nil
		}
	}
	return res, nil
}

// fromMS inverts ms.
func fromMS(v float64) time.Duration { return time.Duration(math.Round(v * float64(time.Millisecond))) }

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// ReadBundle reads the run of an evidence bundle written by WriteBundle: it checks every file
// the manifest lists against its SHA-256 and size (a file changed after the run is refused,
// named), reads report.json with ReadJSON, and checks it against the journals (checkVerdicts).
// It does not check signatures: that is wirecheck verify's. Errors name the file.
func ReadBundle(dir string) (*Run, error) {
	manifestPath := filepath.Join(dir, BundleManifest)
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s: not an evidence bundle (certify --bundle DIR writes one)", dir, BundleManifest)
		}
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", manifestPath, err)
	}
	listed := false
	journals := map[string][]byte{}
	for _, f := range m.Files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			return nil, fmt.Errorf("%s: files: %q is outside the bundle", manifestPath, f.Path)
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: listed in %s but unreadable: %w", path, BundleManifest, unwrapPathErr(err))
		}
		sum := sha256.Sum256(content)
		if got := hex.EncodeToString(sum[:]); got != f.SHA256 || len(content) != f.Bytes {
			return nil, fmt.Errorf("%s: SHA-256 %s (%d bytes) is not the %s (%d bytes) of %s: the bundle was changed after the run",
				path, got, len(content), f.SHA256, f.Bytes, BundleManifest)
		}
		listed = listed || f.Path == BundleJSON
		if strings.HasPrefix(f.Path, journal.BundleDir+"/") {
			journals[f.Path] = content
		}
	}
	if !listed {
		return nil, fmt.Errorf("%s: does not list %s", manifestPath, BundleJSON)
	}
	jsonPath := filepath.Join(dir, BundleJSON)
	content, err := os.ReadFile(jsonPath)
	if err != nil {
		return nil, err
	}
	run, err := ReadJSON(bytes.NewReader(content))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", jsonPath, err)
	}
	if m.ProfileLine != run.ProfileLine() {
		return nil, fmt.Errorf("%s: profile_line %q is not the %q of %s", manifestPath, m.ProfileLine, run.ProfileLine(), BundleJSON)
	}
	if err := attachJournals(dir, run, journals); err != nil {
		return nil, err
	}
	// A report that claims what its journals do not hold is never carried into a new bundle
	// (merge, resume), where a new key would sign it.
	if probs := checkVerdicts(content, journals); len(probs) > 0 {
		lines := make([]string, len(probs))
		for i, p := range probs {
			lines[i] = filepath.Join(dir, p.Error())
		}
		return nil, fmt.Errorf("%s: the report does not agree with the journals:\n%s", dir, strings.Join(lines, "\n"))
	}
	return run, nil
}

// attachJournals gives each case the journal the bundle holds for it, found by the scenario and
// side its header names. A journal no case claims, or two for one case, is refused by name.
func attachJournals(dir string, run *Run, journals map[string][]byte) error {
	type key struct {
		scenario string
		played   scenarios.Side
	}
	cases := map[key]int{}
	for i, c := range run.Cases {
		if c.Result != nil {
			cases[key{c.Result.Scenario, c.Result.Played}] = i
		}
	}
	for _, path := range slices.Sorted(maps.Keys(journals)) {
		data := journals[path]
		first, _, _ := bytes.Cut(data, []byte("\n"))
		rec, err := journal.DecodeRecord(first)
		if err != nil || rec.Header == nil {
			return fmt.Errorf("%s: not a journal: its first line is not a header (%v)", filepath.Join(dir, path), err)
		}
		i, ok := cases[key{rec.Header.Scenario, scenarios.Side(rec.Header.Played)}]
		if !ok {
			return fmt.Errorf("%s: a journal of %s (played %s), which %s does not hold", filepath.Join(dir, path), rec.Header.Scenario, rec.Header.Played, BundleJSON)
		}
		if run.Cases[i].Journal != nil {
			return fmt.Errorf("%s: a second journal of %s (played %s)", filepath.Join(dir, path), rec.Header.Scenario, rec.Header.Played)
		}
		run.Cases[i].Journal = data
	}
	return nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

package reports

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/scenarios"
)

// Files of an evidence bundle.
const (
	BundleJUnit    = "report.junit.xml"
	BundleJSON     = "report.json"
	BundleSchema   = "report.schema.json"
	BundleMarkdown = "report.md"
	BundleHTML     = "report.html"
	BundleManifest = "manifest.json"
	BundleDir      = "transcripts" // one <id with / → __>.jsonl per case
	BundleDaemons  = "daemons"     // one <id with / → __>.log per case that launched a daemon
)

// Manifest is the bundle's manifest.json: every other file of the bundle with its SHA-256, so a
// third party can show the evidence was not changed after the run.
type Manifest struct {
	SchemaVersion string         `json:"schema_version"`
	Tool          string         `json:"tool"`
	ProfileLine   string         `json:"profile_line"`
	OK            bool           `json:"ok"`
	Files         []ManifestFile `json:"files"` // sorted by path
}

// ManifestFile is one file of a bundle.
type ManifestFile struct {
	Path   string `json:"path"` // slash-separated, relative to the bundle
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}

// WriteBundle writes the evidence bundle into dir, which must not exist or be empty (a bundle
// never mixes two runs): the four reports (report.junit.xml, report.json, report.md,
// report.html), report.schema.json, one journals/<id with "/" → "__">.jsonl per case (the
// hash-chained journal of the run, docs/journal.md, its anchor unsigned: see WriteSignedBundle),
// one transcripts/<same>.jsonl per case (one transcript entry per line, the JSON report's shape,
// in time order), one daemons/<same>.log per case that launched a daemon (how each ended and the
// last lines of its stdout and stderr, bounded and redacted like every report), and manifest.json
// with the SHA-256 of every other file.
//
// The journals are written first, from the redacted run; every report and transcript file then
// renders each case's frames and events from its journal's records, never from a second copy.
func WriteBundle(dir string, run *Run) error { return WriteSignedBundle(dir, run, nil) }

// WriteSignedBundle is WriteBundle with every journal's anchor signed with key, and manifest.json
// too: manifest.json.sig (journal.SignManifest). A nil key signs nothing.
func WriteSignedBundle(dir string, run *Run, key ed25519.PrivateKey) error {
	if err := run.validate(); err != nil {
		return err
	}
	if err := emptyDir(dir); err != nil {
		return err
	}
	r, err := run.prepared()
	if err != nil {
		return err
	}
	// rendered is run with each case's transcript read back from its journal: what the reports
	// are written from. prepared() sorts like sortedCases, so the two orders agree.
	rendered := *run
	rendered.Cases = sortedCases(run.Cases)
	files := map[string][]byte{BundleSchema: JSONSchema()}
	names := caseNames(r.Cases)
	for i, c := range r.Cases {
		name, suffix := BundleDir+"/"+caseFileName(names[i], "", ".jsonl"), ""
		for n := 2; exists(files, name); n++ {
			suffix = fmt.Sprintf("-%d", n)
			name = BundleDir + "/" + caseFileName(names[i], suffix, ".jsonl")
		}
		if len(c.Result.Daemons) > 0 {
			// Named like the transcript, so the files of a case go together.
			files[BundleDaemons+"/"+caseFileName(names[i], suffix, ".log")] = []byte(daemonLog(c.Result.Daemons))
		}
		data, transcript, err := caseJournal(r, c, key)
		if err != nil {
			return err
		}
		files[journal.BundleDir+"/"+caseFileName(names[i], suffix, ".jsonl")] = data
		res := *rendered.Cases[i].Result
		res.Transcript = transcript
		rendered.Cases[i].Result = &res
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		for _, e := range jsonTranscript(transcript) {
			if err := enc.Encode(e); err != nil {
				return fmt.Errorf("reports: transcript of %s: %w", c.Result.Scenario, err)
			}
		}
		files[name] = b.Bytes()
	}
	for name, write := range map[string]func(io.Writer, *Run) error{
		BundleJUnit: WriteJUnit, BundleJSON: WriteJSON, BundleMarkdown: WriteMarkdown, BundleHTML: WriteHTML,
	} {
		var b bytes.Buffer
		if err := write(&b, &rendered); err != nil {
			return err
		}
		files[name] = b.Bytes()
	}
	m := Manifest{SchemaVersion: SchemaVersion, Tool: r.Tool, ProfileLine: r.ProfileLine(), OK: r.OK()}
	for name, data := range files {
		sum := sha256.Sum256(data)
		m.Files = append(m.Files, ManifestFile{Path: name, SHA256: hex.EncodeToString(sum[:]), Bytes: len(data)})
	}
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	files[BundleManifest] = append(manifest, '\n')
	if key != nil {
		files[journal.ManifestSigName] = journal.SignManifest(files[BundleManifest], key)
	}
	if err := os.MkdirAll(filepath.Join(dir, BundleDir), 0o755); err != nil {
		return fmt.Errorf("reports: bundle: %w", err)
	}
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("reports: bundle: %w", err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return fmt.Errorf("reports: bundle: %w", err)
		}
	}
	return nil
}

// caseJournal is the journal of one case of the prepared (redacted) run r, and the transcript
// its records hold (the records as written: decoding the bytes again would only cost time, the
// journal tests prove the round trip). A journal the case already has is kept as it is.
func caseJournal(r *Run, c Case, key ed25519.PrivateKey) ([]byte, []scenarios.Exchange, error) {
	res := c.Result
	if c.Journal != nil {
		recs, err := journal.Read(bytes.NewReader(c.Journal))
		if err != nil {
			return nil, nil, fmt.Errorf("reports: journal of %s: %w", res.Scenario, err)
		}
		return c.Journal, journal.Transcript(recs), nil
	}
	h := journal.Header{Wire: r.WireVersion, Catalog: r.CatalogDigest, Seed: r.Seed, Clock: r.Clock, Tool: r.Tool,
		Started: r.Started.UTC().Format(time.RFC3339Nano)}
	if res.Seed != "" {
		h.Seed = res.Seed
	}
	var b bytes.Buffer
	recs, err := journal.Write(&b, h, res, key)
	if err != nil {
		return nil, nil, fmt.Errorf("reports: journal of %s: %w", res.Scenario, err)
	}
	return b.Bytes(), journal.Transcript(recs), nil
}

// emptyDir accepts a directory that does not exist or has nothing in it.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reports: bundle: %w", err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("reports: bundle: %s is not empty: a bundle never mixes two runs, choose a new directory", dir)
	}
	return nil
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// caseFileName is a file of a case: its name with "/" → "__", anything else a file system might
// mind → "_", then suffix (to tell apart names that became equal) and ext.
func caseFileName(name, suffix, ext string) string {
	name = strings.ReplaceAll(name, "/", "__")
	name = strings.Trim(unsafeFileChars.ReplaceAllString(name, "_"), "._")
	if name == "" {
		name = "_"
	}
	return name + suffix + ext
}

func exists(files map[string][]byte, name string) bool { _, ok := files[name]; return ok }

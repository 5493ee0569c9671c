package journal

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// BundleDir is the evidence bundle's directory of journals: one <case file name>.jsonl per case.
const BundleDir = "journals"

// manifestName is the bundle's manifest (reports.BundleManifest; journal does not import reports).
const manifestName = "manifest.json"

// VerifyBundle checks an evidence bundle: every file its manifest lists is there with the
// SHA-256 the manifest gives, every journal is listed, and every journal verifies (Verify). It
// returns the journals checked (bundle-relative, slash-separated) and the problems found.
func VerifyBundle(dir string, pub ed25519.PublicKey) (journals []string, probs []Problem) {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, []Problem{{File: manifestName, Record: -1, Kind: Manifest, Detail: "cannot be read: " + unwrapPath(err)}}
	}
	var m struct {
		Files []struct {
			Path   string `json:"path"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, []Problem{{File: manifestName, Record: -1, Kind: Manifest, Detail: "not a manifest: " + err.Error()}}
	}
	listed := map[string]bool{}
	for _, f := range m.Files {
		listed[f.Path] = true
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			probs = append(probs, Problem{File: f.Path, Record: -1, Kind: Manifest, Detail: "listed in " + manifestName + " but cannot be read: " + unwrapPath(err)})
			continue
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != f.SHA256 {
			probs = append(probs, Problem{File: f.Path, Record: -1, Kind: Manifest, Detail: "its SHA-256 is not the one " + manifestName + " lists: changed after the run"})
		}
		if strings.HasPrefix(f.Path, BundleDir+"/") {
			journals = append(journals, f.Path)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, BundleDir))
	for _, e := range entries {
		if p := path.Join(BundleDir, e.Name()); !listed[p] {
			probs = append(probs, Problem{File: p, Record: -1, Kind: Manifest, Detail: "is not listed in " + manifestName})
			journals = append(journals, p)
		}
	}
	slices.Sort(journals)
	for _, j := range journals {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(j)))
		if err != nil {
			continue // said above
		}
		probs = append(probs, Verify(j, data, pub)...)
	}
	if len(journals) == 0 {
		probs = append(probs, Problem{File: BundleDir, Record: -1, Kind: Manifest, Detail: "the bundle holds no journal (written by a wirecheck without journals?)"})
	}
	return journals, probs
}

func unwrapPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

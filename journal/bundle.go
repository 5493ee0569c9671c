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

// BundleCheck is what VerifyBundle found.
type BundleCheck struct {
	Journals []string // the journals checked (bundle-relative, slash-separated)
	// ManifestKey is the key id manifest.json.sig names ("": the manifest is not signed); it was
	// checked only when a public key was given.
	ManifestKey string
	Problems    []Problem
}

// VerifyBundle checks an evidence bundle: manifest.json's signature (manifest.json.sig: given
// pub, it must be there and be pub's over manifest.json's exact bytes), every file the manifest
// lists is there with the SHA-256 it gives, every journal is listed, and every journal verifies
// (Verify). That the reports agree with the journals is reports.CheckVerdicts.
func VerifyBundle(dir string, pub ed25519.PublicKey) BundleCheck {
	var out BundleCheck
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		out.Problems = []Problem{{File: manifestName, Record: -1, Kind: Manifest, Detail: "cannot be read: " + unwrapPath(err)}}
		return out
	}
	sigFile, err := os.ReadFile(filepath.Join(dir, ManifestSigName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		out.Problems = append(out.Problems, Problem{File: ManifestSigName, Record: -1, Kind: Manifest, Detail: "cannot be read: " + unwrapPath(err)})
	} else {
		var probs []Problem
		out.ManifestKey, probs = checkManifestSig(data, sigFile, pub)
		out.Problems = append(out.Problems, probs...)
	}
	var m struct {
		Files []struct {
			Path   string `json:"path"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		out.Problems = append(out.Problems, Problem{File: manifestName, Record: -1, Kind: Manifest, Detail: "not a manifest: " + err.Error()})
		return out
	}
	listed := map[string]bool{}
	var journals []string
	for _, f := range m.Files {
		listed[f.Path] = true
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			out.Problems = append(out.Problems, Problem{File: f.Path, Record: -1, Kind: Manifest, Detail: "listed in " + manifestName + " but cannot be read: " + unwrapPath(err)})
			continue
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != f.SHA256 {
			out.Problems = append(out.Problems, Problem{File: f.Path, Record: -1, Kind: Manifest, Detail: "its SHA-256 is not the one " + manifestName + " lists: changed after the run"})
		}
		if strings.HasPrefix(f.Path, BundleDir+"/") {
			journals = append(journals, f.Path)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, BundleDir))
	for _, e := range entries {
		if p := path.Join(BundleDir, e.Name()); !listed[p] {
			out.Problems = append(out.Problems, Problem{File: p, Record: -1, Kind: Manifest, Detail: "is not listed in " + manifestName})
			journals = append(journals, p)
		}
	}
	slices.Sort(journals)
	for _, j := range journals {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(j)))
		if err != nil {
			continue // said above
		}
		out.Problems = append(out.Problems, Verify(j, data, pub)...)
	}
	if len(journals) == 0 {
		out.Problems = append(out.Problems, Problem{File: BundleDir, Record: -1, Kind: Manifest, Detail: "the bundle holds no journal (written by a wirecheck without journals?)"})
	}
	out.Journals = journals
	return out
}

func unwrapPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

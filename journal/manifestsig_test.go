package journal_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/journal"
)

// bundle writes a one-journal bundle into a new directory: the journal signed with k, its
// manifest, and the manifest's signature by sign (none when nil).
func bundle(t *testing.T, k, sign ed25519.PrivateKey) string {
	t.Helper()
	dir := t.TempDir()
	data := write(t, k)
	if err := os.MkdirAll(filepath.Join(dir, journal.BundleDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, journal.BundleDir, "a.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	manifest := fmt.Appendf(nil, `{"files":[{"path":"journals/a.jsonl","sha256":"%s","bytes":%d}]}`+"\n", hex.EncodeToString(sum[:]), len(data))
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	if sign != nil {
		if err := os.WriteFile(filepath.Join(dir, journal.ManifestSigName), journal.SignManifest(manifest, sign), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func problemLines(probs []journal.Problem) []string {
	var out []string
	for _, p := range probs {
		out = append(out, p.Error())
	}
	return out
}

func TestManifestSignature(t *testing.T) {
	k, other := key(t, 1), key(t, 2)
	pub := k.Public().(ed25519.PublicKey)
	id, otherID := journal.KeyID(pub), journal.KeyID(other.Public().(ed25519.PublicKey))
	for name, c := range map[string]struct {
		sign    ed25519.PrivateKey
		change  func(dir string)
		pub     ed25519.PublicKey
		wantKey string
		want    []string
	}{
		"signed, checked":       {sign: k, pub: pub, wantKey: id},
		"signed, not checked":   {sign: k, wantKey: id},
		"unsigned, not checked": {},
		"unsigned, checked": {pub: pub,
			want: []string{"manifest.json: is not signed (there is no manifest.json.sig), yet a public key was given to check it"}},
		"another key": {sign: other, pub: pub, wantKey: otherID,
			want: []string{"manifest.json: is signed by key " + otherID + " (manifest.json.sig), not by the given key " + id + ": wrong key"}},
		"manifest changed after it was signed": {sign: k, pub: pub, wantKey: id,
			change: func(dir string) { appendTo(t, filepath.Join(dir, "manifest.json"), " ") },
			want:   []string{"manifest.json: was changed after it was signed: manifest.json.sig does not verify with the given key " + id}},
		"signature file cut": {sign: k, wantKey: "",
			change: func(dir string) { truncate(t, filepath.Join(dir, journal.ManifestSigName), 20) },
			want:   []string{"manifest.json.sig: not a manifest signature: unexpected EOF"}},
	} {
		t.Run(name, func(t *testing.T) {
			dir := bundle(t, k, c.sign)
			if c.change != nil {
				c.change(dir)
			}
			got := journal.VerifyBundle(dir, c.pub)
			if diff := cmp.Diff(c.want, problemLines(got.Problems)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if got.ManifestKey != c.wantKey {
				t.Errorf("manifest key %q, want %q", got.ManifestKey, c.wantKey)
			}
		})
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, s...), 0o644); err != nil {
		t.Fatal(err)
	}
}

func truncate(t *testing.T, path string, n int64) {
	t.Helper()
	if err := os.Truncate(path, n); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeManifestSigRefuses(t *testing.T) {
	good := journal.SignManifest([]byte("{}\n"), key(t, 1))
	s, err := journal.DecodeManifestSig(good)
	if err != nil {
		t.Fatalf("as signed: %v", err)
	}
	sig := `"sig":"` + s.Sig + `"`
	kid := `"key_id":"` + s.KeyID + `"`
	short := base64.StdEncoding.EncodeToString(make([]byte, 63))
	for input, want := range map[string]string{
		`{"format":"wirecheck-manifest-sig/1",` + kid + `,` + sig + `,"x":1}`:                             `unknown field "x"`,
		`{"format":"wirecheck-manifest-sig/2",` + kid + `,` + sig + `}`:                                   `format "wirecheck-manifest-sig/2": this verifier reads "wirecheck-manifest-sig/1"`,
		`{"format":"wirecheck-manifest-sig/1","key_id":"ABC",` + sig + `}`:                                `key_id "ABC" is not 32 lowercase hex characters`,
		`{"format":"wirecheck-manifest-sig/1",` + kid + `,"sig":"` + short + `"}`:                         "sig is not standard base64 of a 64-byte ed25519 signature",
		`{"format":"wirecheck-manifest-sig/1",` + kid + `,"sig":"` + strings.TrimRight(s.Sig, "=") + `"}`: "sig is not standard base64",
		`{"format":"wirecheck-manifest-sig/1",` + kid + `,` + sig + `} {}`:                                "data after the object",
		`{"format":"wirecheck-manifest-sig/1",` + kid + `,` + sig + "}\n\n":                               "data after the object",
		strings.Repeat(" ", 2000): "a signature file is at most 1024",
	} {
		if _, err := journal.DecodeManifestSig([]byte(input)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.80s: %v, want %q", input, err, want)
		}
	}
}

func FuzzDecodeManifestSig(f *testing.F) {
	f.Add(journal.SignManifest([]byte("{}\n"), key(f, 1)))
	f.Add([]byte(`{"format":"wirecheck-manifest-sig/1","key_id":"","sig":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := journal.DecodeManifestSig(data)
		if err != nil {
			return
		}
		// What decodes names a key id and a 64-byte signature, and encodes to a file that
		// decodes the same.
		sig, err := base64.StdEncoding.DecodeString(s.Sig)
		if err != nil || len(sig) != ed25519.SignatureSize || len(s.KeyID) != 32 {
			t.Fatalf("decoded %+v", s)
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := journal.DecodeManifestSig(out)
		if err != nil || back != s {
			t.Fatalf("%s decodes to %+v, %v; want %+v", out, back, err, s)
		}
	})
}

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

// A certification of the reference Runtime, as a child process and signed, writes a bundle that
// verifies with its public key; another key, an edited record and a dropped journal each fail
// with their own line naming the file and record.
func TestCertifyBundleVerifies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := filepath.Join(dir, "signing.pem")
	if out, err := wirecheckCommand("keygen", "--out", key).CombinedOutput(); err != nil {
		t.Fatalf("keygen: %v\n%s", err, out)
	}
	other := filepath.Join(dir, "other.pem")
	if out, err := wirecheckCommand("keygen", "--out", other).CombinedOutput(); err != nil {
		t.Fatalf("keygen: %v\n%s", err, out)
	}
	if st, err := os.Stat(key); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the private key: %v %v", st, err)
	}
	bundle := filepath.Join(dir, "evidence")
	daemon := os.Args[0] + " runtime --server {core_url} --device {device_id}"
	cmd := wirecheckCommand("certify", "--runtime-cmd", daemon, "--env", reexecMain+"=1", "--run", "admission/prepare/idle-executor-is-reused,connection/credential/wrong,connection/disconnect-is-unknown-and-reconnect-does-not-replay",
		"--bundle", bundle, "--sign-key", key, "--markdown", "", "--quiet", "--seed", "journal-test")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("certify: %v\n%s", err, out)
	}
	journals, _ := filepath.Glob(filepath.Join(bundle, "journals", "*.jsonl"))
	if len(journals) < 2 {
		t.Fatalf("journals: %v", journals)
	}
	verify := func(args ...string) (string, int) {
		out, err := wirecheckCommand(append([]string{"verify", bundle}, args...)...).CombinedOutput()
		return string(out), exitCodeOf(err)
	}
	if out, code := verify("--pubkey", key+".pub"); code != 0 || !strings.Contains(out, "verifies: manifest matches") {
		t.Fatalf("the bundle as written: exit %d\n%s", code, out)
	}
	out, code := verify("--pubkey", other+".pub")
	if code != 1 || !strings.Contains(out, ": the anchor is signed by key ") || !strings.Contains(out, "wrong key") {
		t.Errorf("another key: exit %d\n%s", code, out)
	}

	// Rejudged from the journals alone, nothing differs; a Runtime frame that names another
	// Executor than the one bound fails its step now.
	if out, err := wirecheckCommand("rejudge", bundle).CombinedOutput(); err != nil || !strings.HasSuffix(string(out), "; nothing differs\n") {
		t.Fatalf("rejudge of the bundle as written: %v\n%s", err, out)
	}
	reused := filepath.Join(bundle, "journals", "admission__prepare__idle-executor-is-reused.jsonl")
	orig, err := os.ReadFile(reused)
	if err != nil {
		t.Fatal(err)
	}
	from := []byte(`\"id\":\"prepare2\",\"payload\":{\"executor_id\":\"executor-`)
	if !bytes.Contains(orig, from) {
		t.Fatalf("no prepare2 status in %s", orig)
	}
	if err := os.WriteFile(reused, bytes.Replace(orig, from, append(from, 'X'), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	rout, err := wirecheckCommand("rejudge", bundle).CombinedOutput()
	if exitCodeOf(err) != 1 || !strings.Contains(string(rout), "journals/admission__prepare__idle-executor-is-reused.jsonl: record ") ||
		!strings.Contains(string(rout), "recorded pass; step ") || !strings.Contains(string(rout), "warning: journals/admission__prepare__idle-executor-is-reused.jsonl: record ") {
		t.Errorf("rejudge of an edited frame: %v\n%s", err, rout)
	}
	if err := os.WriteFile(reused, orig, 0o644); err != nil {
		t.Fatal(err)
	}

	// The header names the run; the frames carry the validator's verdict; nothing carries the
	// credential.
	data, err := os.ReadFile(journals[0])
	if err != nil {
		t.Fatal(err)
	}
	var first struct{ Header map[string]string }
	if err := json.Unmarshal(data[:bytes.IndexByte(data, '\n')], &first); err != nil {
		t.Fatal(err)
	}
	if h := first.Header; h["clock"] != "real" || len(h["catalog"]) != 64 || h["wire"] == "" || !strings.HasPrefix(h["seed"], "journal-test") {
		t.Errorf("header: %v", h)
	}
	if !bytes.Contains(data, []byte(`"verdict":"ok"`)) {
		t.Errorf("no frame verdict in %s", journals[0])
	}

	// Edit one frame record in place.
	lines := bytes.Split(data, []byte("\n"))
	for i, l := range lines {
		if i > 0 && bytes.Contains(l, []byte(`"kind":"frame"`)) {
			lines[i] = bytes.Replace(l, []byte(`"seq":1`), []byte(`"seq":7`), 1)
			if err := os.WriteFile(journals[0], bytes.Join(lines, []byte("\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(bundle, journals[0])
			out, code := verify("--pubkey", key+".pub")
			wantRecord := rel + ": record " + itoa(i) + ": was edited"
			if code != 1 || !strings.Contains(out, wantRecord) || !strings.Contains(out, rel+": its SHA-256 is not the one manifest.json lists") {
				t.Errorf("an edited record: exit %d, want %q\n%s", code, wantRecord, out)
			}
			break
		}
	}
	if err := os.Remove(journals[1]); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(bundle, journals[1])
	if out, code := verify(); code != 1 || !strings.Contains(out, rel+": listed in manifest.json but cannot be read") {
		t.Errorf("a dropped journal: exit %d\n%s", code, out)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// failingCatalog is a catalog of two scenarios: one the reference Runtime passes, one it fails
// (it waits for a frame no Runtime sends).
func failingCatalog(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "catalog")
	if err := os.MkdirAll(filepath.Join(dir, "forged"), 0o755); err != nil {
		t.Fatal(err)
	}
	creds, err := os.ReadFile("../../scenarios/catalog/connection/credentials.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fails := `id: forged/fails
title: Expects a frame the Runtime never sends
spec: ["runtime-protocol.md#ownership-and-connection"]
labels: [connection]
steps:
  - runtime: {type: done, id: nothing, payload: {content: ""}}
`
	for name, data := range map[string][]byte{"credentials.yaml": creds, "fails.yaml": []byte(fails)} {
		if err := os.WriteFile(filepath.Join(dir, "forged", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// forgePass rewrites bundle's report.json so that forged/fails passed and the run is certified.
func forgePass(t *testing.T, bundle string) {
	t.Helper()
	forgeReport(t, bundle, func(run *reports.Run) {
		for _, c := range run.Cases {
			if c.Result.Scenario == "forged/fails" {
				c.Result.Verdict, c.Result.Failure = scenarios.Pass, nil
			}
		}
		if !run.OK() {
			t.Fatalf("the forgery does not certify: %s", run.ProfileLine())
		}
	})
}

// forgeReport rewrites bundle's report.json as edit changes its run, every member following
// from the cases, and gives manifest.json the forged file's SHA-256, size, profile line and
// verdict: all a forger without the key can do.
func forgeReport(t *testing.T, bundle string, edit func(*reports.Run)) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(bundle, reports.BundleJSON))
	if err != nil {
		t.Fatal(err)
	}
	run, err := reports.ReadJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	edit(run)
	var b bytes.Buffer
	if err := reports.WriteJSON(&b, run); err != nil {
		t.Fatal(err)
	}
	rehash(t, bundle, reports.BundleJSON, b.Bytes())
	// The manifest repeats the verdict: the forger changes it too.
	var m reports.Manifest
	mdata, err := os.ReadFile(filepath.Join(bundle, reports.BundleManifest))
	if err != nil || json.Unmarshal(mdata, &m) != nil {
		t.Fatalf("manifest: %v", err)
	}
	m.ProfileLine, m.OK = run.ProfileLine(), run.OK()
	mdata, _ = json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(bundle, reports.BundleManifest), append(mdata, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A signed bundle proves itself whole: its manifest is signed, and report.json is checked
// against the journals. Each tampering is its own line naming manifest.json or report.json.
func TestVerifySignedManifestAndReportVerdicts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, other := filepath.Join(dir, "signing.pem"), filepath.Join(dir, "other.pem")
	for _, k := range []string{key, other} {
		if out, err := wirecheckCommand("keygen", "--out", k).CombinedOutput(); err != nil {
			t.Fatalf("keygen: %v\n%s", err, out)
		}
	}
	pubData, _ := os.ReadFile(key + ".pub")
	pub, err := journal.ParsePublicKey(pubData)
	if err != nil {
		t.Fatal(err)
	}
	id := journal.KeyID(pub)
	written := filepath.Join(dir, "written")
	cmd := wirecheckCommand("certify", "--reference", "--catalog", failingCatalog(t), "--run", "forged/fails,connection/credential/wrong",
		"--step-timeout", "300ms", "--bundle", written, "--sign-key", key, "--markdown", "", "--quiet", "--seed", "manifest-test")
	if out, err := cmd.CombinedOutput(); exitCodeOf(err) != 1 {
		t.Fatalf("certify: %v, want exit 1 (one scenario fails)\n%s", err, out)
	}
	verify := func(t *testing.T, bundle string, args ...string) (string, int) {
		t.Helper()
		out, err := wirecheckCommand(append([]string{"verify", bundle}, args...)...).CombinedOutput()
		return string(out), exitCodeOf(err)
	}
	// Each case tampers with a copy of the bundle as written.
	fresh := func(t *testing.T) string {
		t.Helper()
		b := filepath.Join(t.TempDir(), "bundle")
		if err := os.CopyFS(b, os.DirFS(written)); err != nil {
			t.Fatal(err)
		}
		return b
	}
	const forgedLine = "report.json: case forged/fails (played core): verdict pass, but its journal journals/forged__fails.jsonl records fail"
	tamperedLine := "manifest.json: was changed after it was signed: manifest.json.sig does not verify with the given key " + id
	for name, c := range map[string]struct {
		tamper   func(t *testing.T, bundle string)
		args     []string
		code     int
		want     []string
		wantNone []string
	}{
		"as written": {args: []string{"--pubkey", key + ".pub"},
			want: []string{"verifies: manifest matches and is signed by " + id + ", report.json agrees with the journals, 2 journals, hash chains whole, every anchor signed by " + id}},
		"as written, no key given": {
			want: []string{"verifies: manifest matches, its signature (key " + id + ") not checked (give --pubkey), report.json agrees with the journals"}},
		"another key": {args: []string{"--pubkey", other + ".pub"}, code: 1,
			want: []string{"manifest.json: is signed by key " + id + " (manifest.json.sig), not by the given key "}},
		"unsigned manifest, key given": {args: []string{"--pubkey", key + ".pub"}, code: 1,
			tamper: func(t *testing.T, b string) { remove(t, filepath.Join(b, "manifest.json.sig")) },
			want:   []string{"manifest.json: is not signed (there is no manifest.json.sig), yet a public key was given to check it\n"}},
		"forged pass, manifest rehashed, key given": {args: []string{"--pubkey", key + ".pub"}, code: 1, tamper: forgePass,
			want: []string{tamperedLine, forgedLine}},
		"forged pass, manifest rehashed and unsigned, no key given": {code: 1,
			tamper: func(t *testing.T, b string) { forgePass(t, b); remove(t, filepath.Join(b, "manifest.json.sig")) },
			want:   []string{forgedLine, "report.json: the run's verdict is ok true, exit_code 0, profile_line "}, wantNone: []string{"manifest.json"}},
	} {
		t.Run(name, func(t *testing.T) {
			b := fresh(t)
			if c.tamper != nil {
				c.tamper(t, b)
			}
			out, code := verify(t, b, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s", code, c.code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in\n%s", w, out)
				}
			}
			for _, w := range c.wantNone {
				if strings.Contains(out, w) {
					t.Errorf("%q in\n%s", w, out)
				}
			}
		})
	}
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// rehash writes file into bundle and gives it its new SHA-256 and size in manifest.json.
func rehash(t *testing.T, bundle, file string, data []byte) {
	t.Helper()
	var m reports.Manifest
	mdata, err := os.ReadFile(filepath.Join(bundle, reports.BundleManifest))
	if err != nil || json.Unmarshal(mdata, &m) != nil {
		t.Fatalf("manifest: %v", err)
	}
	for i, f := range m.Files {
		if f.Path == file {
			sum := sha256.Sum256(data)
			m.Files[i].SHA256, m.Files[i].Bytes = hex.EncodeToString(sum[:]), len(data)
		}
	}
	mdata, _ = json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(bundle, file), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bundle, reports.BundleManifest), append(mdata, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A certification of the reference Runtime, as a child process and signed, writes a bundle that
// verifies with its public key; another key, an edited record and a dropped journal each fail
// with their own line naming the file and record.
func TestCertifyBundleVerifies(t *testing.T) {
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
	if out, err := wirecheckCommand("rejudge", bundle).CombinedOutput(); err != nil || !strings.Contains(string(out), "0 verdicts differ") {
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

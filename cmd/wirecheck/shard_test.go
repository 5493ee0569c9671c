package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

// verdicts is what a certification concludes, as its JSON report says it.
type verdicts struct {
	OK          bool              `json:"ok"`
	ExitCode    int               `json:"exit_code"`
	ProfileLine string            `json:"profile_line"`
	Reasons     []string          `json:"reasons"`
	Cases       map[string]string // id → verdict and outcome
}

func readVerdicts(t *testing.T, path string) (verdicts, *reports.Shard) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		verdicts
		Shard *struct {
			Index, Count, Total int
		} `json:"shard"`
		Cases []struct{ ID, Verdict, Outcome string } `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	v := doc.verdicts
	v.Cases = map[string]string{}
	for _, c := range doc.Cases {
		v.Cases[c.ID] = c.Verdict + " " + c.Outcome
	}
	var sh *reports.Shard
	if doc.Shard != nil {
		sh = &reports.Shard{Index: doc.Shard.Index, Count: doc.Shard.Count, Total: doc.Shard.Total}
	}
	return v, sh
}

// runWirecheck runs `wirecheck args...` and returns its exit code and stderr.
func runWirecheck(args ...string) (int, string) {
	cmd := wirecheckCommand(args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	return exitCodeOf(err), stderr.String()
}

// The reference Runtime certified in 3 shards (as 3 CI machines would, here 3 processes at once)
// and merged gives the verdicts of one run: every scenario's, the overall one, and the profile
// line. Then merge refuses what does not make one certification.
//
// Sharding and merging need scenarios of several families, enough to deal unevenly, with their
// journals and transcripts; they are played from a sample that shows every family, label, step
// kind and frame type of the catalog (catalogSample, about 40 scenarios), not the whole catalog
// twice (single run and shards: ~500 plays, their reports and bundles, then eight merges of them).
func TestCertifyInThreeShardsMergesToTheVerdictsOfOneRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sample, n := catalogSample(t, "")
	if n%3 == 0 { // the deal must be uneven: one scenario fewer
		ids := strings.Split(sample, ",")
		sample, n = strings.Join(ids[:n-1], ","), n-1
	}
	key := filepath.Join(dir, "signing.pem")
	if code, stderr := runWirecheck("keygen", "--out", key); code != 0 {
		t.Fatalf("keygen: exit %d\n%s", code, stderr)
	}
	common := []string{"certify", "--reference", "--run", sample, "--seed", "shardtest", "--parallel", "4", "--quiet", "--markdown", ""}
	jobs := map[string][]string{"single": nil}
	for k := 1; k <= 3; k++ {
		jobs[fmt.Sprintf("shard-%d", k)] = []string{"--shard", fmt.Sprintf("%d/3", k), "--sign-key", key}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	failures := map[string]string{}
	for name, extra := range jobs {
		args := append(append(append([]string(nil), common...), extra...), "--bundle", filepath.Join(dir, name))
		wg.Go(func() {
			if code, stderr := runWirecheck(args...); code != 0 {
				mu.Lock()
				failures[name] = fmt.Sprintf("exit %d\n%s", code, stderr)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("certify: %v", failures)
	}

	single, _ := readVerdicts(t, filepath.Join(dir, "single", reports.BundleJSON))
	if len(single.Cases) != n {
		t.Fatalf("the single run played %d scenarios of a sample of %d; want the sample", len(single.Cases), n)
	}
	seen := map[string]int{}
	for k := 1; k <= 3; k++ {
		v, sh := readVerdicts(t, filepath.Join(dir, fmt.Sprintf("shard-%d", k), reports.BundleJSON))
		want := &reports.Shard{Index: k, Count: 3, Total: len(single.Cases)}
		if diff := cmp.Diff(want, sh); diff != "" {
			t.Errorf("shard %d/3 says (-want +got):\n%s", k, diff)
		}
		if n, lo := len(v.Cases), len(single.Cases)/3; n < lo || n > lo+1 {
			t.Errorf("shard %d/3 played %d of %d scenarios: not balanced", k, n, len(single.Cases))
		}
		for id := range v.Cases {
			seen[id]++
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s is in %d shards", id, n)
		}
	}

	out := filepath.Join(dir, "merged")
	code, stderr := runWirecheck("merge", out, filepath.Join(dir, "shard-3"), filepath.Join(dir, "shard-1"), filepath.Join(dir, "shard-2"),
		"--markdown", "", "--junit", filepath.Join(dir, "merged.junit.xml"), "--sign-key", key)
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "merged/manifest.json signed by key ") {
		t.Errorf("merge did not say it signed the manifest:\n%s", stderr)
	}
	merged, sh := readVerdicts(t, filepath.Join(out, reports.BundleJSON))
	if diff := cmp.Diff(single, merged); diff != "" {
		t.Errorf("the merged verdicts are not the single run's (-single +merged):\n%s", diff)
	}
	if sh == nil || sh.Index != 0 || sh.Count != 3 || sh.Total != len(single.Cases) {
		t.Errorf("the merged report's shard member is %+v, want index 0, count 3, total %d", sh, len(single.Cases))
	}
	if !strings.Contains(stderr, single.ProfileLine) {
		t.Errorf("merge did not print the profile line %q:\n%s", single.ProfileLine, stderr)
	}
	if _, err := reports.ReadBundle(out); err != nil {
		t.Errorf("the merged bundle does not check against its manifest: %v", err)
	}
	// The shards' journals travel byte for byte, their signatures with them; merge signs the
	// manifest with its own --sign-key.
	if out, err := wirecheckCommand("verify", out, "--pubkey", key+".pub").CombinedOutput(); err != nil ||
		!strings.Contains(string(out), "manifest matches and is signed by ") {
		t.Errorf("the merged bundle does not verify with the shards' and merge's key: %v\n%s", err, out)
	}
	// Without --sign-key, merge says the manifest is not signed, and verify --pubkey refuses it.
	unsigned := filepath.Join(dir, "merged-unsigned")
	if code, stderr := runWirecheck("merge", unsigned, filepath.Join(dir, "shard-1"), filepath.Join(dir, "shard-2"), filepath.Join(dir, "shard-3"),
		"--markdown", ""); code != 0 || !strings.Contains(stderr, "merged-unsigned/manifest.json is not signed (give --sign-key to sign it)") {
		t.Errorf("merge without --sign-key: exit %d\n%s", code, stderr)
	}
	if out, err := wirecheckCommand("verify", unsigned, "--pubkey", key+".pub").CombinedOutput(); exitCodeOf(err) != 1 ||
		!strings.Contains(string(out), "manifest.json: is not signed (there is no manifest.json.sig), yet a public key was given to check it") {
		t.Errorf("verify --pubkey of an unsigned merge: %v\n%s", err, out)
	}
	mergedJournals, _ := filepath.Glob(filepath.Join(out, "journals", "*.jsonl"))
	if len(mergedJournals) != len(single.Cases) {
		t.Errorf("the merged bundle holds %d journals for %d scenarios", len(mergedJournals), len(single.Cases))
	}
	for _, m := range mergedJournals {
		shardCopies, _ := filepath.Glob(filepath.Join(dir, "shard-*", "journals", filepath.Base(m)))
		got, _ := os.ReadFile(m)
		if len(shardCopies) != 1 {
			t.Errorf("%s: in %d shards", filepath.Base(m), len(shardCopies))
		} else if want, _ := os.ReadFile(shardCopies[0]); !bytes.Equal(got, want) {
			t.Errorf("%s: not the shard's journal byte for byte", filepath.Base(m))
		}
	}
	junit, err := os.ReadFile(filepath.Join(dir, "merged.junit.xml"))
	if err != nil || !bytes.Contains(junit, []byte(fmt.Sprintf(`tests="%d"`, len(single.Cases)))) {
		t.Errorf("merged JUnit lacks the %d tests (%v)", len(single.Cases), err)
	}

	t.Run("refusals", func(t *testing.T) { mergeRefusals(t, dir) })
}

// mergeRefusals: every way shards fail to make one certification is named, with exit 3.
func mergeRefusals(t *testing.T, dir string) {
	shard := func(k int) string { return filepath.Join(dir, fmt.Sprintf("shard-%d", k)) }
	copyOf := func(k int, name string, change func(string)) string {
		dst := filepath.Join(t.TempDir(), name)
		if out, err := exec.Command("cp", "-r", shard(k), dst).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
		if change != nil {
			change(dst)
		}
		return dst
	}
	tampered := copyOf(2, "tampered", func(d string) {
		files, _ := filepath.Glob(filepath.Join(d, reports.BundleDir, "*.jsonl"))
		if err := os.WriteFile(files[0], []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	// A shard whose report.json claims a failure its journal does not hold, with its manifest
	// rehashed to match.
	forged := copyOf(2, "forged", func(d string) {
		forgeReport(t, d, func(run *reports.Run) { run.Cases[0].Result.Verdict = scenarios.NotApplicable })
	})
	notEmpty := t.TempDir()
	if err := os.WriteFile(filepath.Join(notEmpty, "old"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"a missing shard":        {[]string{shard(1), shard(3)}, "shard 2/3 missing"},
		"a directory twice":      {[]string{shard(1), shard(2), shard(2), shard(3)}, "given twice"},
		"a shard twice":          {[]string{shard(1), shard(2), copyOf(2, "again", nil), shard(3)}, "are both shard 2/3"},
		"a changed file":         {[]string{shard(1), tampered, shard(3)}, "tampered/transcripts/"},
		"a forged report":        {[]string{shard(1), forged, shard(3)}, "forged/report.json: case "},
		"not a shard":            {[]string{shard(1), filepath.Join(dir, "single")}, "single/report.json: not a shard's report"},
		"not a bundle":           {[]string{shard(1), t.TempDir()}, "no manifest.json: not an evidence bundle"},
		"an OUT that holds runs": {[]string{shard(1), shard(2), shard(3)}, "is not empty"},
	} {
		out := filepath.Join(t.TempDir(), "merged")
		if name == "an OUT that holds runs" {
			out = notEmpty
		}
		code, stderr := runWirecheck(append([]string{"merge", out, "--markdown", ""}, c.args...)...)
		if code != 3 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, want 3 saying %q:\n%s", name, code, c.want, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, reports.BundleJSON)); err == nil && name != "an OUT that holds runs" {
			t.Errorf("%s: a merged report was written", name)
		}
	}
}

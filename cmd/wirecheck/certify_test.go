package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wirecheck/wirecheck/agentruntime"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// certifyAndCheckReports runs `wirecheck certify` with every report, requires exit 0, and checks
// each report's structure: the evidence a third party attaches to its CI. run is a --run value
// ("" for the whole catalog), played n scenarios at once; want is how many scenarios it selects.
func certifyAndCheckReports(t *testing.T, bin, run string, parallel, want int, target ...string) {
	t.Helper()
	out := t.TempDir()
	args := append([]string{"certify"}, target...)
	if run != "" {
		args = append(args, "--run", run)
	}
	args = append(args, "--label-filter", "!long-timer", "--parallel", strconv.Itoa(parallel), "--quiet",
		"--junit", filepath.Join(out, "junit.xml"), "--json", filepath.Join(out, "report.json"),
		"--html", filepath.Join(out, "report.html"), "--bundle", filepath.Join(out, "bundle"), "--markdown", "-")
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("certify took %v\n%s", time.Since(start).Round(time.Millisecond), stderr.String())
	if err != nil {
		t.Fatalf("certify: %v\nstdout:\n%s", err, stdout.String())
	}
	if !strings.Contains(stdout.String(), "CERTIFIED") || !strings.Contains(stderr.String(), "— CERTIFIED") {
		t.Fatalf("no CERTIFIED profile line:\n%s\n%s", stdout.String(), stderr.String())
	}

	var suites struct {
		XMLName xml.Name `xml:"testsuites"`
		Tests   int      `xml:"tests,attr"`
		Fail    int      `xml:"failures,attr"`
		Suites  []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err := os.ReadFile(filepath.Join(out, "junit.xml"))
	if err != nil || xml.Unmarshal(data, &suites) != nil {
		t.Fatalf("junit.xml: %v", err)
	}
	if suites.Tests != want || suites.Fail != 0 || len(suites.Suites) < 4 {
		t.Fatalf("junit: %d tests (want %d), %d failures, %d suites", suites.Tests, want, suites.Fail, len(suites.Suites))
	}

	schemaDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(reports.JSONSchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("report.schema.json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(doc); err != nil {
		t.Fatalf("report.json does not match its schema: %v", err)
	}
	var summary struct {
		OK      bool `json:"ok"`
		Profile struct {
			Supported []string `json:"supported"`
		} `json:"profile"`
	}
	raw, _ := os.ReadFile(filepath.Join(out, "report.json"))
	_ = json.Unmarshal(raw, &summary)
	if !summary.OK || len(summary.Profile.Supported) == 0 {
		t.Fatalf("report.json: ok=%v, profile %v", summary.OK, summary.Profile.Supported)
	}

	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !bytes.Contains(html, []byte("<svg")) || bytes.Contains(html, []byte(`src="http`)) {
		t.Fatalf("report.html is missing its diagrams or is not self-contained (%v)", err)
	}
	for _, name := range []string{reports.BundleManifest, reports.BundleJUnit, reports.BundleJSON, reports.BundleHTML, reports.BundleMarkdown} {
		if _, err := os.Stat(filepath.Join(out, "bundle", name)); err != nil {
			t.Errorf("bundle lacks %s", name)
		}
	}
	transcripts, _ := filepath.Glob(filepath.Join(out, "bundle", "transcripts", "*.jsonl"))
	if len(transcripts) != want {
		t.Errorf("bundle has %d transcripts for %d scenarios", len(transcripts), want)
	}
}

// The main job: certify the reference Runtime as a child process with the whole catalog (the
// long-timer scenarios are left to the gate's virtual clock). The whole catalog, because 14 of
// its scenarios wait more real time than the gate's child-process pairing allows (a heartbeat
// every 15 s, a write blocked for 10 s): this is where they meet a daemon in another process.
// Eight at once, as the gate plays on 2 CPUs (4 × GOMAXPROCS): the run waits on real time and
// daemons starting (about 30 % of one CPU at four at once), and its length is the slowest
// scenarios', 15 s, plus the rest divided by the plays at once.
func TestCertifyTheReferenceRuntimeAsAChildProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	t.Parallel()
	bin := builtWirecheck(t)
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	labels, _ := runner.ParseLabelFilter("!long-timer")
	certifyAndCheckReports(t, bin, "", 8, len(runner.Select(cat, runner.Options{Labels: labels})),
		"--runtime-cmd", bin+" runtime --server {core_url} --device {device_id}")
}

// The same certification against a container image built from the reference Runtime without a
// registry: a static binary imported as the image's only file. What this adds to the child-process
// certification above is the container path (the image, a hardened container per scenario, its
// logs, its stop, and the orphan reaped), so it plays a sample that shows every family, label,
// step kind and frame type of the catalog (catalogSample), not each of the 249 scenarios again,
// each a container started and removed.
func TestCertifyTheReferenceRuntimeAsAnImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image")
	}
	engine, err := exec.LookPath("podman")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must have podman (see .ci/install-container-engine.sh)")
		}
		t.Skip("no podman on this machine")
	}
	if os.Getenv("CONTAINERS_CONF") == "" {
		abs, _ := filepath.Abs("../../.ci/containers.conf")
		t.Setenv("CONTAINERS_CONF", abs)
	}
	dir := t.TempDir()
	static, err := goBuild(true)
	if err != nil {
		t.Fatal(err)
	}
	image := "localhost/wirecheck-reference:test-" + time.Now().Format("150405")
	if err := importImage(engine, static, filepath.Join(dir, "rootfs.tar"), image); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exec.Command(engine, "rmi", "-f", image).Run() })
	// A container an earlier, killed wirecheck left behind: its owner ran on this host and is gone.
	self, err := agentruntime.Self()
	if err != nil {
		t.Fatal(err)
	}
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	orphan := "wirecheck-orphan-" + time.Now().Format("150405.000000")
	owner := agentruntime.Owner{Host: self.Host, Boot: self.Boot, PID: ended.Process.Pid, StartTicks: 1}
	if out, err := exec.Command(engine, "create", "--name", orphan, "--label", agentruntime.LabelManaged+"=true",
		"--label", agentruntime.LabelOwner+"="+owner.String(), image).CombinedOutput(); err != nil {
		t.Fatalf("creating the orphan: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command(engine, "rm", "-f", orphan).Run() })
	run, n := catalogSample(t, "!long-timer")
	certifyAndCheckReports(t, builtWirecheck(t), run, 4, n, "--runtime-image", image, "--engine", engine)
	if err := exec.Command(engine, "inspect", orphan).Run(); err == nil {
		t.Errorf("the container %s, whose wirecheck is gone, is still there after a certification", orphan)
	}
}

// importImage makes an image whose only file is the static binary at /wirecheck, running
// `wirecheck runtime` (it reads WIRECHECK_CORE_URL and WIRECHECK_DEVICE_ID).
func importImage(engine, bin, tarPath, image string) error {
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	f, err := os.Create(tarPath)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	if err := tw.WriteHeader(&tar.Header{Name: "wirecheck", Mode: 0o755, Size: int64(len(data)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := tw.Write(data); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	out, err := exec.Command(engine, "import", "--change", `ENTRYPOINT ["/wirecheck", "runtime"]`, tarPath, image).CombinedOutput()
	if err != nil {
		return &exec.ExitError{Stderr: out}
	}
	return nil
}

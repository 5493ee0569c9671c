package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// collector is an OTLP/HTTP endpoint on loopback that keeps what it is sent.
type collector struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path == "/v1/traces" {
		c.mu.Lock()
		c.bodies = append(c.bodies, body)
		c.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

func (c *collector) received() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Join(c.bodies, nil)
}

// With the standard OTEL_EXPORTER_OTLP_ENDPOINT set, `wirecheck certify` exports its run, scenario
// and step spans over OTLP/HTTP before it exits, under the service name wirecheck; without it,
// nothing is sent. The traced certification's bundle (its Core frames stamped) replays the same.
func TestCertifyExportsTracesWhenAskedAndItsBundleReplays(t *testing.T) {
	t.Parallel()
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	const id = "runs/prepared/completes-and-releases-before-done"
	certify := func(bundle string, env ...string) {
		t.Helper()
		cmd := wirecheckCommand("certify", "--reference", "--bundle", bundle, "--markdown", "", "--quiet", "--seed", "trace-test", "--run", id)
		cmd.Env = append(cmd.Env, env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("certify: %v\n%s", err, out)
		}
	}
	certify(filepath.Join(t.TempDir(), "untraced"))
	if got := col.received(); len(got) > 0 {
		t.Fatalf("tracing off, yet %d bytes were exported", len(got))
	}
	bundle := filepath.Join(t.TempDir(), "traced")
	certify(bundle, "OTEL_EXPORTER_OTLP_ENDPOINT="+srv.URL)
	got := col.received()
	for _, want := range []string{"wirecheck.run", "wirecheck.scenario", "wirecheck.step", id, "service.name", "wirecheck"} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("the export lacks %q", want)
		}
	}
	if !bytes.Contains(got, []byte("wirecheck.runtime.run")) {
		t.Error("the in-process reference Runtime's Run span was not exported")
	}
	journal, err := os.ReadFile(filepath.Join(bundle, "journals", strings.ReplaceAll(id, "/", "__")+".jsonl"))
	if err != nil || !bytes.Contains(journal, []byte(`trace\":\"00-`)) {
		t.Fatalf("the traced bundle's journal holds no stamped frame (%v)", err)
	}
	out, err := wirecheckCommand("replay", bundle, "--reference").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "1 replay: 1 the same, 0 diverge\n") {
		t.Fatalf("replaying the traced bundle: %v\n%s", err, out)
	}
}

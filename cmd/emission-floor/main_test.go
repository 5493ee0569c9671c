package main

import (
	"os/exec"
	"regexp"
	"testing"

	"github.com/wirecheck/wirecheck/internal/testbin"
)

// The command starts its receiver, sends every frame and prints the percentiles of their one-way
// and round-trip latencies.
func TestEveryFrameIsMeasured(t *testing.T) {
	bin, err := testbin.Build("github.com/wirecheck/wirecheck/cmd/emission-floor")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-frames", "200", "-conns", "7", "-rate", "5000").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	line := `frames 200  p50 [0-9.]+  p99 [0-9.]+  p999 [0-9.]+  max [0-9.]+ ms\n`
	if !regexp.MustCompile(`^one way:    ` + line + `round trip: ` + line + `$`).Match(out) {
		t.Fatalf("output %q", out)
	}
}

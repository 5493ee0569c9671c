package main

import (
	"os"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/internal/catalogsample"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// reexecMain is set in the environment of a child process that a test starts from this test binary:
// the child runs the real main, so a test observes the command exactly as a user's process would
// (its exit code, its stdout and stderr) without a separate build.
const reexecMain = "WIRECHECK_TEST_REEXEC_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(reexecMain) == "1" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

var buildOnce = sync.OnceValues(func() (string, error) { return goBuild(false) })

// builtWirecheck is this command built by `go build` as a user builds it, once for every test
// that runs a real binary (a re-executed test binary does for the others).
func builtWirecheck(t *testing.T) string {
	t.Helper()
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// goBuild builds this command to bin; static when asked (for a container image). A static build
// compiles again every package that cgo changes (net and all above it), where the default build
// links what compiling the tests left in the build cache: build static only for an image.
// It is kept between runs (testbin): a caller that needs the file under another name copies it.
func goBuild(static bool) (string, error) {
	if static {
		return testbin.Build(".", "CGO_ENABLED=0")
	}
	return testbin.Build(".")
}

// catalogSample is a representative part of what `certify` selects with these label filters
// (see package catalogsample), as a --run value, and how many scenarios it is. For tests whose
// claim is about the command around the verdicts (shards and their merge, the container path),
// not about each verdict: the gate plays every scenario, in process and as a child process.
func catalogSample(t *testing.T, labelFilter string) (run string, n int) {
	t.Helper()
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	labels, err := runner.ParseLabelFilter(labelFilter)
	if err != nil {
		t.Fatal(err)
	}
	ids := catalogsample.IDs(catalogsample.Cover(runner.Select(cat, runner.Options{Labels: labels})))
	return strings.Join(ids, ","), len(ids)
}

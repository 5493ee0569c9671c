package main

import (
	"os"
	"testing"

	"go.uber.org/goleak"
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

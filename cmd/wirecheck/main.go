// Command wirecheck is the conformance suite and wire simulator for the Core ↔ Runtime daemon
// protocol: it certifies Runtime daemons, runs the scenario catalog against the reference sides,
// and serves the reference Core and Runtime as real programs.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/tracing"
)

// root is the command tree; each subcommand registers itself from its own file.
var root = &cobra.Command{
	Use:           "wirecheck",
	Short:         "Conformance suite and wire simulator for the Core ↔ Runtime daemon protocol",
	SilenceUsage:  true,
	SilenceErrors: true,
}

func main() {
	shutdown, err := tracing.Setup(context.Background(), serviceName(os.Args[1:]))
	if err != nil {
		fmt.Fprintln(os.Stderr, "wirecheck:", err)
		os.Exit(exitUsage)
	}
	err = root.Execute()
	flushTraces(shutdown)
	if err != nil {
		// Several problems found at once are one per line.
		fmt.Fprintln(os.Stderr, "wirecheck:", strings.ReplaceAll(err.Error(), "\n", "\n  "))
		os.Exit(exitCode(err))
	}
}

// serviceName is the OpenTelemetry service of the command being run: the reference sides trace as
// themselves, everything else as the suite.
func serviceName(args []string) string {
	if len(args) > 0 {
		switch args[0] {
		case "core":
			return "wirecheck-core"
		case "runtime":
			return "wirecheck-runtime"
		}
	}
	return "wirecheck"
}

// flushTraces exports what tracing batched before the process exits, within a bound: a collector
// that is down must not hold the exit up.
func flushTraces(shutdown func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), traceFlushBound)
	defer cancel()
	if err := shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "wirecheck: exporting traces:", err)
	}
}

const traceFlushBound = 5 * time.Second

// exitUsage is the exit code of a usage or configuration error found before anything ran (1 and
// 2 mean "not certified" and "harness error" to certify).
const exitUsage = 3

// usageError is err with exitUsage.
func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

// exitError carries a specific exit code (e.g. 2 for a failed certification).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func exitCode(err error) int {
	if e, ok := err.(*exitError); ok {
		return e.code
	}
	return 1
}

// Command wirecheck is the conformance suite and wire simulator for the Core ↔ Runtime daemon
// protocol: it certifies Runtime daemons, runs the scenario catalog against the reference sides,
// and serves the reference Core and Runtime as real programs.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// root is the command tree; each subcommand registers itself from its own file.
var root = &cobra.Command{
	Use:           "wirecheck",
	Short:         "Conformance suite and wire simulator for the Core ↔ Runtime daemon protocol",
	SilenceUsage:  true,
	SilenceErrors: true,
}

func main() {
	if err := root.Execute(); err != nil {
		// Several problems found at once are one per line.
		fmt.Fprintln(os.Stderr, "wirecheck:", strings.ReplaceAll(err.Error(), "\n", "\n  "))
		os.Exit(exitCode(err))
	}
}

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

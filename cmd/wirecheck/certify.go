package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/certify"
	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// certifyFlags are the flags of `wirecheck certify`.
type certifyFlags struct {
	sel                      selection
	runtimeCmd, runtimeImage string
	reference                bool
	engine                   string
	credentialEnv            string
	knownFailing             string
	parallel                 int
	timeout, step            time.Duration
	seed                     string
	junit, json, md, html    string
	bundle                   string
	faults                   string
	quiet                    bool
}

func init() {
	var f certifyFlags
	cmd := &cobra.Command{
		Use:   "certify",
		Short: "Certify a Runtime daemon: launch it, play Core against it with the catalog, report",
		Long: `certify launches the Runtime daemon under test once per scenario (a local command, a container
image, or the reference Runtime in process), plays Core against it over a real WebSocket on
loopback, and reports, frame by frame, where it stands.

The daemon is given the Core URL and its device ID as {core_url} and {device_id} in its command
and as WIRECHECK_CORE_URL / WIRECHECK_DEVICE_ID, and its credential only in the environment
variable named by --credential-env. It must register the agent kind "contract" (see
docs/contract-harness.md); scenarios whose capabilities it does not declare are reported as not
applicable, never as passes.

Exit status: 0 only when every applicable scenario passed (and every known-failing one failed),
1 when the daemon is not certified, 2 when the suite itself failed (harness errors) or was
interrupted.`,
		Example: `  wirecheck certify --runtime-cmd './mydaemon --core {core_url} --device {device_id}' --html report.html
  wirecheck certify --runtime-image localhost/mydaemon:dev --known-failing known-failing.txt --junit junit.xml
  wirecheck certify --reference --run admission,cancellation`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCertify(cmd, &f) },
	}
	f.sel.flags(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.runtimeCmd, "runtime-cmd", "", "the daemon's command line; {core_url} and {device_id} are filled in (with --runtime-image: the command inside the container)")
	fl.StringVar(&f.runtimeImage, "runtime-image", "", "a container image of the daemon (run with podman or docker, hardened, --network host)")
	fl.BoolVar(&f.reference, "reference", false, "certify the reference Runtime in process on a virtual clock")
	fl.StringVar(&f.engine, "engine", "", "container engine for --runtime-image (default: podman or docker, whichever is found)")
	fl.StringVar(&f.credentialEnv, "credential-env", "WIRECHECK_CREDENTIAL", "environment variable through which the daemon receives its credential")
	fl.StringVar(&f.knownFailing, "known-failing", "", "file of scenario id patterns expected to fail (they still run; an unexpected pass fails the run)")
	fl.IntVar(&f.parallel, "parallel", 1, "scenarios at once (each with its own daemon, device and connection)")
	fl.DurationVar(&f.timeout, "timeout", 60*time.Second, "bound on one scenario")
	fl.DurationVar(&f.step, "step-timeout", 3*time.Second, "bound on every read and wait inside a scenario")
	fl.StringVar(&f.seed, "seed", "", "seed for generated values (printed; give it back to reproduce a run)")
	fl.StringVar(&f.junit, "junit", "", "write a JUnit XML report to this file")
	fl.StringVar(&f.json, "json", "", "write the JSON report to this file")
	fl.StringVar(&f.md, "markdown", "-", "write the Markdown summary to this file (- for standard output, empty for none)")
	fl.StringVar(&f.html, "html", "", "write the self-contained HTML report to this file")
	fl.StringVar(&f.bundle, "bundle", "", "write the evidence bundle (every report, transcripts, manifest) into this new directory")
	fl.StringVar(&f.faults, "faults", "", "a fault schedule (docs/fault-injection.md) applied through a relay to every scenario; --seed reproduces its random choices")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress lines (the default when CI is set or stderr is not a terminal)")
	root.AddCommand(cmd)
}

func runCertify(cmd *cobra.Command, f *certifyFlags) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	targets := 0
	for _, set := range []bool{f.runtimeCmd != "" && f.runtimeImage == "", f.runtimeImage != "", f.reference} {
		if set {
			targets++
		}
	}
	if targets != 1 {
		return errors.New("give exactly one target: --runtime-cmd, --runtime-image (optionally with --runtime-cmd) or --reference")
	}
	cat, err := f.sel.catalog()
	if err != nil {
		return err
	}
	cfg := certify.Config{Catalog: cat, Run: f.sel.run, Skip: f.sel.skip, LabelFilter: f.sel.labelFilter,
		Parallel: f.parallel, Timeout: f.timeout, Step: f.step, Seed: f.seed}
	if f.seed == "" {
		cfg.Seed = runner.NewSeed()
	}
	if f.knownFailing != "" {
		file, err := os.Open(f.knownFailing)
		if err != nil {
			return err
		}
		cfg.KnownFailing, err = runner.ParseKnownFailing(file)
		file.Close()
		if err != nil {
			return err
		}
		cfg.KnownFailingFiles = []string{f.knownFailing}
	}
	if f.faults != "" {
		if cfg.Faults, err = fault.LoadFile(f.faults); err != nil {
			return err
		}
	}
	target, err := f.target(ctx, cfg.Seed)
	if err != nil {
		return err
	}
	defer target.Close()
	cfg.Target = target
	sel, err := certify.Select(cfg)
	if err != nil {
		return err
	}

	errOut := cmd.ErrOrStderr()
	fmt.Fprintf(errOut, "wirecheck certify: %s\n", sel.Describe(target))
	if f.faults != "" {
		fmt.Fprintf(errOut, "faults: %s applied to every scenario through a relay (seeded from %s)\n", f.faults, cfg.Seed)
	}
	if !f.quiet && os.Getenv("CI") == "" && isTerminal(os.Stderr) {
		cfg.Progress = func(r *scenarios.Result) {
			fmt.Fprintf(errOut, "  %-14s %s (%v)\n", r.Verdict, r.Scenario, r.Duration.Round(time.Millisecond))
		}
	}
	run, err := certify.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if err := f.write(cmd.OutOrStdout(), run); err != nil {
		return err
	}
	fmt.Fprintln(errOut, run.ProfileLine())
	if code := run.ExitCode(); code != 0 || ctx.Err() != nil {
		if ctx.Err() != nil {
			code = reports.ExitHarnessError
		}
		return &exitError{code: code, err: errors.New("not certified")}
	}
	return nil
}

// closingTarget is a Target and what releases it.
type closingTarget interface {
	runner.Target
	Close() error
}

// target builds the Runtime under test from the flags.
func (f *certifyFlags) target(ctx context.Context, runID string) (closingTarget, error) {
	if f.reference {
		return inProcess{}, nil
	}
	opts := runner.DaemonOptions{CredentialEnv: f.credentialEnv, RunID: runID, Engine: f.engine}
	if f.runtimeImage != "" {
		return runner.Image(ctx, f.runtimeImage, f.runtimeCmd, opts)
	}
	return runner.Command(f.runtimeCmd, opts)
}

// inProcess is the reference Runtime in process, which holds nothing to release.
type inProcess struct{ runner.ReferenceRuntime }

func (inProcess) Close() error { return nil }

func (f *certifyFlags) write(stdout io.Writer, run *reports.Run) error {
	outputs := []struct {
		path  string
		write func(io.Writer, *reports.Run) error
	}{{f.junit, reports.WriteJUnit}, {f.json, reports.WriteJSON}, {f.html, reports.WriteHTML}, {f.md, reports.WriteMarkdown}}
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		if o.path == "-" {
			if err := o.write(stdout, run); err != nil {
				return err
			}
			continue
		}
		file, err := os.Create(o.path)
		if err != nil {
			return err
		}
		err = o.write(file, run)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", o.path, err)
		}
	}
	if f.bundle != "" {
		return reports.WriteBundle(f.bundle, run)
	}
	return nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

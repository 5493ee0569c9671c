package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/certify"
	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/runner"
)

// certifyFlags are the flags of `wirecheck certify`.
type certifyFlags struct {
	sel                      selection
	resume                   string
	runtimeCmd, runtimeImage string
	reference                bool
	engine                   string
	credentialEnv            string
	env                      []string
	knownFailing             string
	parallel                 int
	noFailFast               bool
	timeout, step            time.Duration
	seed                     string
	junit, json, md, html    string
	bundle                   string
	signKey                  string
	faults                   string
	specDirs                 []string
	quiet                    bool
	shard                    string
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
variable named by --credential-env. Nothing else of wirecheck's environment reaches it unless
asked: --env NAME passes one of wirecheck's variables, --env NAME=VALUE sets one (an interpreter
installed by a version manager needs --env PATH --env HOME). It must register the agent kind
"contract" (see docs/contract-harness.md); scenarios whose capabilities it does not declare are
reported as not applicable, never as passes.

Scenarios run in real time, each bounded by the time its steps wait (the admission expiry waits
five minutes of real time; --label-filter '!long-timer' leaves such scenarios out) unless
--timeout bounds them all. Before the first scenario certify checks that the daemon's command is
an executable (or the image is in the engine), that every report path is writable and the bundle
directory empty, and that every --run and --skip pattern, label and --known-failing entry
matches a scenario. --shard K/N plays one share of the selection on one machine; the reports say
which, and ` + "`wirecheck merge`" + ` combines the N shards' bundles into the report of the whole. On a terminal one status line tells how far it is; with CI set or without a
terminal, one line per scenario. Ctrl-C or SIGTERM stops it within seconds, the reports still
written with what finished (a second one quits at once).

Exit status:
  0  certified: every applicable scenario passed (and every known-failing one failed)
  1  not certified
  2  harness error (the suite or the machine failed) or interrupted
  3  usage or configuration error, found before the first scenario`,
		Example: `  wirecheck certify --runtime-cmd './mydaemon --core {core_url} --device {device_id}' --html report.html
  wirecheck certify --runtime-cmd 'python3 daemon.py --core {core_url}' --env PATH --env HOME --env LOG_LEVEL=debug
  wirecheck certify --runtime-image localhost/mydaemon:dev --known-failing known-failing.txt --junit junit.xml
  wirecheck certify --reference --run admission,cancellation
  wirecheck certify --runtime-cmd './mydaemon --core {core_url}' --shard 2/3 --seed "$RUN" --bundle shard-2`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.NoArgs(cmd, args); err != nil {
				return usageError(err)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return runCertify(cmd, &f) },
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	f.sel.flags(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.runtimeCmd, "runtime-cmd", "", "the daemon's command line; {core_url} and {device_id} are filled in (with --runtime-image: the command inside the container)")
	fl.StringVar(&f.runtimeImage, "runtime-image", "", "a container image of the daemon (run with podman or docker, hardened, --network host)")
	fl.BoolVar(&f.reference, "reference", false, "certify the reference Runtime in process on a virtual clock")
	fl.StringVar(&f.engine, "engine", "", "container engine for --runtime-image (default: podman or docker, whichever is found)")
	fl.StringVar(&f.credentialEnv, "credential-env", "WIRECHECK_CREDENTIAL", "environment variable through which the daemon receives its credential")
	fl.StringArrayVar(&f.env, "env", nil, "NAME passes wirecheck's variable NAME to the daemon, NAME=VALUE sets it (repeatable; by default the daemon's environment holds only what wirecheck gives it)")
	fl.StringVar(&f.knownFailing, "known-failing", "", "file of scenario id patterns expected to fail (they still run; an unexpected pass fails the run)")
	fl.IntVar(&f.parallel, "parallel", 1, "scenarios at once (each with its own daemon, device and connection)")
	fl.DurationVar(&f.timeout, "timeout", 0, "bound on every scenario (default: each its own, from the real time its steps wait)")
	fl.DurationVar(&f.step, "step-timeout", 0, "bound on every read and wait inside a scenario (default: 3s against a daemon in another process; in process, with --reference, a safety net of "+runner.InProcessBound.String()+": every wait there is for what the daemon did)")
	fl.StringVar(&f.seed, "seed", "", "seed for generated values (printed; give it back to reproduce a run)")
	fl.StringVar(&f.junit, "junit", "", "write a JUnit XML report to this file")
	fl.StringVar(&f.json, "json", "", "write the JSON report to this file")
	fl.StringVar(&f.md, "markdown", "-", "write the Markdown summary to this file (- for standard output, empty for none)")
	fl.StringVar(&f.html, "html", "", "write the self-contained HTML report to this file")
	fl.StringVar(&f.bundle, "bundle", "", "write the evidence bundle (every report, a hash-chained journal per scenario, transcripts, manifest) into this new or empty directory")
	fl.StringVar(&f.signKey, "sign-key", "", "sign the bundle's manifest.json and every journal's anchor with this ed25519 private key (PEM PKCS #8: `wirecheck keygen` or `openssl genpkey -algorithm ed25519`); `wirecheck verify --pubkey` checks it")
	fl.StringVar(&f.faults, "faults", "", "a fault schedule (docs/fault-injection.md) applied through a relay to every scenario; --seed reproduces its random choices")
	fl.StringArrayVar(&f.specDirs, "spec", nil, "a directory holding the files the scenarios cite (the protocol spec; docs/ for contract-harness.md), repeatable: the HTML report then quotes every cited section")
	fl.StringVar(&f.shard, "shard", "", "K/N: play only the K-th of N shares of the selection (dealt round-robin over it sorted by id, after --run, --skip and --label-filter), for `wirecheck merge` to combine; give every shard the same --seed")
	fl.StringVar(&f.resume, "resume", "", "continue the interrupted certification whose evidence bundle is this directory: its seed, selection and target, only the scenarios it did not finish, reported as one run (write to a new --bundle)")
	fl.BoolVar(&f.noFailFast, "no-fail-fast", false, fmt.Sprintf("play every scenario even when the first %d to end all failed the same way before a connection (by default the run then stops, exit 1, and reports the rest as not run)", certify.FailFastAfter))
	fl.BoolVar(&f.quiet, "quiet", false, "no progress (by default: a status line on a terminal, one line per scenario when CI is set or stderr is not a terminal)")
	root.AddCommand(cmd)
}

func runCertify(cmd *cobra.Command, f *certifyFlags) error {
	if err := f.check(); err != nil {
		return usageError(err)
	}
	ctx, signalled, stopSignals := interruptible(cmd.Context())
	defer stopSignals()
	cfg, err := f.config()
	if err != nil {
		return usageError(err)
	}
	target, err := f.target(ctx, cfg.Seed)
	if err != nil {
		return usageError(err)
	}
	defer target.Close()
	cfg.Target = target
	if ref, ok := target.(inProcess); ok {
		// The bare reference: the runner fits it to each scenario (a capability withheld, a small
		// send buffer for await_stall), which it does not do through a wrapper.
		cfg.Target = ref.ReferenceRuntime
	}
	var resumed *resumption
	if f.resume != "" {
		if resumed, err = resume(f.resume, &cfg, f); err != nil {
			return usageError(err)
		}
	}
	if err := certify.Check(ctx, cfg); err != nil {
		return usageError(err)
	}
	sel, err := certify.Select(cfg)
	if err != nil {
		return usageError(err)
	}

	errOut := cmd.ErrOrStderr()
	if resumed != nil {
		fmt.Fprintf(errOut, "resuming %s (seed %s): %d of %d scenarios have their verdicts; playing the other %d\n",
			f.resume, cfg.Seed, len(resumed.finished), len(resumed.order), len(sel.Scenarios))
	}
	fmt.Fprintf(errOut, "wirecheck certify: %s\n", sel.Describe(target))
	if f.faults != "" {
		fmt.Fprintf(errOut, "faults: %s applied to every scenario through a relay (seeded from %s)\n", f.faults, cfg.Seed)
	}
	notice := func(s string) { fmt.Fprintln(errOut, s) }
	stopProgress := func() {}
	if !f.quiet {
		width, live := terminalWidth(os.Stderr)
		live = live && os.Getenv("CI") == ""
		p := newProgress(errOut, live, width, time.Now, sel.Scenarios, f.parallel, cfg.KnownFailing.Has)
		cfg.Started, cfg.Waiting, cfg.Progress = p.Started, p.Waiting, p.Finished
		notice, stopProgress = p.Notice, p.run(time.Second)
	}
	cfg.Stopping = func(e *certify.StoppedEarly) { notice(e.Error()) }
	context.AfterFunc(ctx, func() {
		if s := signalled(); s != nil {
			notice(fmt.Sprintf("%v: stopping the scenarios that run; the reports will hold what finished (again to quit at once)", s))
		}
	})
	run, err := certify.Run(ctx, cfg)
	stopProgress()
	if err != nil {
		return usageError(err)
	}
	if resumed != nil {
		run = resumed.combine(run)
	}
	if err := f.write(cmd.OutOrStdout(), run); err != nil {
		return &exitError{code: reports.ExitHarnessError, err: fmt.Errorf("writing the reports: %w", err)}
	}
	if err := reports.WriteCauses(errOut, run); err != nil {
		return &exitError{code: reports.ExitHarnessError, err: err}
	}
	fmt.Fprintln(errOut, run.ProfileLine())
	if s := signalled(); s != nil {
		return &exitError{code: reports.ExitHarnessError, err: fmt.Errorf("interrupted (%v): not certified", s)}
	}
	if code := run.ExitCode(); code != reports.ExitCertified {
		return &exitError{code: code, err: errors.New("not certified")}
	}
	return nil
}

// check refuses flags that cannot make a run, before anything starts.
func (f *certifyFlags) check() error {
	var problems []error
	targets := 0
	for _, set := range []bool{f.runtimeCmd != "" && f.runtimeImage == "", f.runtimeImage != "", f.reference} {
		if set {
			targets++
		}
	}
	if targets != 1 {
		problems = append(problems, errors.New("give exactly one target: --runtime-cmd, --runtime-image (optionally with --runtime-cmd) or --reference"))
	}
	for _, dir := range f.specDirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			problems = append(problems, fmt.Errorf("--spec %s: not a directory", dir))
		}
	}
	if f.parallel < 1 {
		problems = append(problems, fmt.Errorf("--parallel %d: at least one scenario must run at a time", f.parallel))
	}
	if f.timeout < 0 || f.step < 0 {
		problems = append(problems, fmt.Errorf("--timeout %v, --step-timeout %v: bounds must be positive", f.timeout, f.step))
	}
	if f.shard != "" {
		if _, err := certify.ParseShard(f.shard); err != nil {
			problems = append(problems, fmt.Errorf("--%w", err))
		}
	}
	if _, _, err := parseEnv(f.env); err != nil {
		problems = append(problems, err)
	}
	if f.reference && len(f.env) > 0 {
		problems = append(problems, errors.New("--env is for a daemon certify launches; the reference Runtime in process has no environment of its own"))
	}
	outputs := []output{{"junit", f.junit}, {"json", f.json}, {"html", f.html}, {"markdown", f.md}}
	if err := checkOutputs(outputs, f.bundle); err != nil {
		problems = append(problems, err)
	}
	if f.signKey != "" {
		if f.bundle == "" {
			problems = append(problems, errors.New("--sign-key signs the evidence bundle: give --bundle too"))
		}
		if _, err := readSignKey(f.signKey); err != nil {
			problems = append(problems, err)
		}
	}
	return errors.Join(problems...)
}

// config is the certification the flags describe, without its target.
func (f *certifyFlags) config() (certify.Config, error) {
	cat, err := f.sel.catalog()
	if err != nil {
		return certify.Config{}, err
	}
	cfg := certify.Config{Catalog: cat, Run: f.sel.run, Skip: f.sel.skip, LabelFilter: f.sel.labelFilter,
		Parallel: f.parallel, NoFailFast: f.noFailFast, Timeout: f.timeout, Step: f.step, Seed: f.seed, SpecDirs: f.specDirs}
	if f.seed == "" {
		cfg.Seed = runner.NewSeed()
	}
	if f.shard != "" {
		cfg.Shard, _ = certify.ParseShard(f.shard) // checked before
	}
	// Every journal's header names the catalog, sharded or not.
	if cfg.CatalogDigest, err = certify.CatalogDigest(f.sel.catalogFS()); err != nil {
		return cfg, err
	}
	if f.knownFailing != "" {
		file, err := os.Open(f.knownFailing)
		if err != nil {
			return cfg, err
		}
		cfg.KnownFailing, err = runner.ParseKnownFailing(file)
		file.Close()
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", f.knownFailing, err)
		}
		cfg.KnownFailingFiles = []string{f.knownFailing}
	}
	if f.faults != "" {
		if cfg.Faults, err = fault.LoadFile(f.faults); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// parseEnv splits --env values into variables set (NAME=VALUE) and passed (NAME).
func parseEnv(values []string) (set map[string]string, pass []string, err error) {
	for _, v := range values {
		name, value, isSet := strings.Cut(v, "=")
		if name == "" {
			return nil, nil, fmt.Errorf("--env %q: give NAME or NAME=VALUE", v)
		}
		if !isSet {
			pass = append(pass, name)
			continue
		}
		if set == nil {
			set = map[string]string{}
		}
		set[name] = value
	}
	return set, pass, nil
}

// interruptible is ctx until the first Ctrl-C or SIGTERM, which cancels it; signalled says which
// came. After it, the signals regain their default action: a second one ends wirecheck at once.
func interruptible(parent context.Context) (ctx context.Context, signalled func() os.Signal, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var got atomic.Value
	done := make(chan struct{})
	go func() { // owner: stop
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			got.Store(s)
			cancel()
		case <-done:
		}
	}()
	signalled = func() os.Signal {
		s, _ := got.Load().(os.Signal)
		return s
	}
	return ctx, signalled, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
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
	opts.Env, opts.PassEnv, _ = parseEnv(f.env) // checked before
	if f.runtimeImage != "" {
		return runner.Image(ctx, f.runtimeImage, f.runtimeCmd, opts)
	}
	return runner.Command(f.runtimeCmd, opts)
}

// inProcess is the reference Runtime in process, which holds nothing to release.
type inProcess struct{ runner.ReferenceRuntime }

func (inProcess) Close() error { return nil }

func (f *certifyFlags) write(stdout io.Writer, run *reports.Run) error {
	p := reportPaths{junit: f.junit, json: f.json, html: f.html, md: f.md, bundle: f.bundle}
	if f.signKey != "" {
		key, err := readSignKey(f.signKey) // read before the run too: it was good then
		if err != nil {
			return err
		}
		p.signKey = key
	}
	return writeReports(stdout, run, p)
}

// reportPaths are where the reports go ("" none, "-" standard output); bundle is a directory,
// whose manifest and new journals' anchors signKey signs (nil: unsigned).
type reportPaths struct {
	junit, json, html, md, bundle string
	signKey                       ed25519.PrivateKey
}

// writeReports renders run into every report asked for.
func writeReports(stdout io.Writer, run *reports.Run, p reportPaths) error {
	outputs := []struct {
		path  string
		write func(io.Writer, *reports.Run) error
	}{{p.junit, reports.WriteJUnit}, {p.json, reports.WriteJSON}, {p.html, reports.WriteHTML}, {p.md, reports.WriteMarkdown}}
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
	if p.bundle != "" {
		return reports.WriteSignedBundle(p.bundle, run, p.signKey)
	}
	return nil
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/load"
	"github.com/wirecheck/wirecheck/reference/core"
)

func init() { root.AddCommand(newLoadCommand()) }

func newLoadCommand() *cobra.Command {
	var (
		cfg                            load.Config
		coreURL, registerCmd, coreMode string
		jsonPath                       string
		seed                           int64
		soak                           bool
	)
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Put N simulated Runtimes on one Core, start Turns at a rate, and measure what it holds",
		Long: `load connects N light simulated Runtimes (the contract kind: bootstrap, heartbeat at the Core's
interval, execution admission, scripted events) to one Core, starts Turns at --rate through the
Core's API (POST /api/v1/turns) until --turns or --duration, and reports connection rate, Turn
dispatch, event emission and completion latency (p50/p99/p999), errors, and both sides' memory, as a
table and (--json) as JSON. Then it reads every Turn back from the Core (GET /api/v1/turns/{id} and
its journal) and checks that each ended once with an outcome the protocol allows.

By default it starts the reference Core as a child process (wirecheck core) on loopback with a
temporary bbolt file, and measures its resident memory; --core inproc runs it in this process.
--core-url targets a Core already running; --register-cmd then registers each device (run with sh -c,
WIRECHECK_DEVICE_INDEX set; it prints "DEVICE_ID CREDENTIAL" or {"device_id","credential"}), and
without it devices are registered through POST /api/v1/devices. Only loopback addresses are allowed.

Faults: --storm P drops and reconnects P % of the Runtimes per minute; --cancel F makes a fraction of
the Turns wait until cancelled through the API, and --lost-receipts F withholds the cancellation
receipt of that fraction of them. The choices follow --seed (printed; random when not given).
--soak is the 10-minute soak: 1,000 Runtimes, Turns at 20/s, a 10 %/min storm, cancellations and lost
receipts, and the goroutines and memory sampled over the run must stay flat.

Exit status: 0 when every check passed, 1 when one failed, 3 for a usage error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if soak {
				applySoak(cmd, &cfg)
			}
			if !cmd.Flags().Changed("seed") {
				seed = time.Now().UnixNano()
			}
			cfg.Seed = seed
			if registerCmd != "" && coreURL == "" {
				return usageError(errors.New("--register-cmd needs --core-url"))
			}
			if coreURL != "" && cmd.Flags().Changed("core") {
				return usageError(errors.New("--core starts a reference Core; --core-url targets another: give one"))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			out := cmd.OutOrStdout()
			cfg.Log = out
			tr := &http.Transport{MaxIdleConnsPerHost: 64}
			defer tr.CloseIdleConnections()
			hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
			switch {
			case coreURL != "":
				cfg.CoreURL = coreURL
			default:
				url, memory, closeCore, err := startCore(ctx, coreMode, cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				defer closeCore()
				cfg.CoreURL, cfg.CoreMemory = url, memory
				fmt.Fprintf(out, "reference Core (%s) at %s\n", coreMode, url)
			}
			if registerCmd != "" {
				cfg.Register = load.CommandRegistrar(registerCmd)
			} else {
				cfg.Register = load.APIRegistrar(cfg.CoreURL, hc)
			}
			rep, err := load.Run(ctx, cfg)
			if err != nil {
				if rep == nil {
					return usageError(err)
				}
				return err
			}
			if soak {
				rep.Checks = append(rep.Checks, rep.Flat())
			}
			rep.WriteTable(out)
			if jsonPath != "" {
				raw, _ := json.MarshalIndent(rep, "", "  ")
				if err := os.WriteFile(jsonPath, append(raw, '\n'), 0o644); err != nil {
					return err
				}
			}
			if !rep.OK() {
				return &exitError{code: 1, err: errors.New("a check on the Core's records failed")}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.Runtimes, "runtimes", 100, "simulated Runtimes (devices)")
	f.Float64Var(&cfg.Rate, "rate", 50, "Turns started per second")
	f.IntVar(&cfg.Turns, "turns", 1000, "Turns to start at most (0: connections and heartbeats only, for --duration)")
	f.DurationVar(&cfg.Duration, "duration", time.Minute, "how long Turns are started at most")
	f.IntVar(&cfg.Events, "events", 3, "deltas each Turn emits")
	f.DurationVar(&cfg.Hold, "hold", 0, "how long each Turn streams: its events are spread over it (keeps Runs concurrent)")
	f.Float64Var(&cfg.Storm, "storm", 0, "percentage of the Runtimes dropped and reconnected per minute")
	f.Float64Var(&cfg.Cancel, "cancel", 0, "fraction of the Turns that wait until cancelled through the API")
	f.Float64Var(&cfg.LostReceipts, "lost-receipts", 0, "fraction of the cancelled Turns whose receipt the Runtime withholds")
	f.DurationVar(&cfg.Drain, "drain", time.Minute, "how long to wait for the last Turns' outcomes")
	f.Int64Var(&seed, "seed", 0, "seed of every random choice (printed; default random)")
	f.StringVar(&coreURL, "core-url", "", "base URL of a running Core (loopback only), instead of starting the reference Core")
	f.StringVar(&registerCmd, "register-cmd", "", "command that registers one device and prints its ID and credential (with --core-url)")
	f.StringVar(&coreMode, "core", "child", "how to start the reference Core: child (a wirecheck core process) or inproc")
	f.StringVar(&jsonPath, "json", "", "write the report as JSON to this file")
	f.BoolVar(&soak, "soak", false, "the 10-minute soak (flags given explicitly still win)")
	return cmd
}

// applySoak sets the soak's values for every flag the user did not give.
func applySoak(cmd *cobra.Command, cfg *load.Config) {
	set := func(name string, apply func()) {
		if !cmd.Flags().Changed(name) {
			apply()
		}
	}
	set("runtimes", func() { cfg.Runtimes = 1000 })
	set("rate", func() { cfg.Rate = 20 })
	set("turns", func() { cfg.Turns = 1 << 30 })
	set("duration", func() { cfg.Duration = 10 * time.Minute })
	set("storm", func() { cfg.Storm = 10 })
	set("cancel", func() { cfg.Cancel = 0.1 })
	set("lost-receipts", func() { cfg.LostReceipts = 0.5 })
	set("hold", func() { cfg.Hold = 2 * time.Second })
}

// startCore starts the reference Core on loopback with a temporary bbolt file: as a child process
// (this executable's core command; its resident memory is measurable) or in this process.
func startCore(ctx context.Context, mode string, stderr io.Writer) (url string, memory func() (load.ProcessMemory, error), closeCore func(), err error) {
	dir, err := os.MkdirTemp("", "wirecheck-load-")
	if err != nil {
		return "", nil, nil, err
	}
	data := filepath.Join(dir, "core.db")
	switch mode {
	case "inproc":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			_ = os.RemoveAll(dir)
			return "", nil, nil, err
		}
		base := "http://" + ln.Addr().String()
		c, err := core.Open(core.Config{DataFile: data, PublicURL: base})
		if err != nil {
			_ = ln.Close()
			_ = os.RemoveAll(dir)
			return "", nil, nil, err
		}
		srv := &http.Server{Handler: c.Handler(), ReadHeaderTimeout: 10 * time.Second}
		served := make(chan struct{})
		go func() { defer close(served); _ = srv.Serve(ln) }()
		return base, nil, func() {
			_ = c.Close()
			_ = srv.Close()
			<-served
			_ = os.RemoveAll(dir)
		}, nil
	case "child":
		exe, err := os.Executable()
		if err != nil {
			_ = os.RemoveAll(dir)
			return "", nil, nil, err
		}
		child := exec.Command(exe, "core", "--listen", "127.0.0.1:0", "--data", data, "--log-level", "error")
		child.Stderr = struct{ io.Writer }{stderr} // Write only: a bytes.Buffer's ReadFrom would hold its tail across the child's life
		stdout, err := child.StdoutPipe()
		if err != nil {
			_ = os.RemoveAll(dir)
			return "", nil, nil, err
		}
		if err := child.Start(); err != nil {
			_ = os.RemoveAll(dir)
			return "", nil, nil, fmt.Errorf("starting the reference Core: %w", err)
		}
		stopChild := func() {
			_ = child.Process.Signal(syscall.SIGTERM)
			_ = child.Wait()
			_ = os.RemoveAll(dir)
		}
		addr, err := listeningAddress(ctx, stdout)
		if err != nil {
			stopChild()
			return "", nil, nil, fmt.Errorf("the reference Core did not say where it listens: %w", err)
		}
		go func() { _, _ = io.Copy(io.Discard, stdout) }()
		pid := child.Process.Pid
		return addr, func() (load.ProcessMemory, error) { return load.ReadProcessMemory(pid) }, stopChild, nil
	}
	_ = os.RemoveAll(dir)
	return "", nil, nil, usageError(fmt.Errorf("--core %q: child or inproc", mode))
}

// listeningAddress reads the core command's first line, "wirecheck core listening on URL (...)".
func listeningAddress(ctx context.Context, stdout io.Reader) (string, error) {
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		if s.Scan() {
			line <- s.Text()
		}
		close(line)
	}()
	select {
	case l, ok := <-line:
		rest, found := strings.CutPrefix(l, "wirecheck core listening on ")
		if !ok || !found {
			return "", fmt.Errorf("first line %q", l)
		}
		addr, _, _ := strings.Cut(rest, " ")
		return addr, nil
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(30 * time.Second):
		return "", errors.New("no answer in 30 s")
	}
}

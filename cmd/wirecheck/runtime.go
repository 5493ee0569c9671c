package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
)

// Exit codes of `wirecheck runtime`.
const (
	exitRefused      = 2 // a permanent refusal: 401, 403 or a 4001 close
	exitIncompatible = 3 // 426 incompatible_version
)

// defaultCredentialEnv is the environment variable the daemon credential is read from.
const defaultCredentialEnv = "WIRECHECK_CREDENTIAL"

func init() { root.AddCommand(newRuntimeCommand()) }

func newRuntimeCommand() *cobra.Command {
	var (
		server, device, credentialEnv, workspace, logLevel string
		envRoot, envID, sessionID                          string
		withhold                                           []string
	)
	cmd := &cobra.Command{
		Use:   "runtime",
		Short: "Run the reference Runtime daemon, with the contract Harness, against a Core",
		Long: `runtime runs the reference Runtime daemon against the Core at --server (a base URL ending in
/api/v1) as device --device, with the contract Harness registered as agent kind "contract" (and
kind "contract-unavailable", advertised available: false, which runs nothing).

The daemon credential is read only from the environment variable named by --credential-env; it is
never accepted as a flag value and never logged. The daemon reconnects after transient failures and
stops for good on a permanent refusal.

--withhold leaves capabilities of the contract kind undeclared (and unserved), so the daemon answers
what a Runtime without them must: the gate plays the scenarios that exclude them this way.

SIGINT or SIGTERM shuts it down gracefully: native work settles, every Executor is closed, exit 0.
Exit 3: Core refused the wire version (426 incompatible_version). Exit 2: any other permanent refusal
(401, 403, or a 4001 close). Exit 1: the command could not start.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			level, err := parseLevel(logLevel)
			if err != nil {
				return err
			}
			if server == "" || device == "" {
				return errors.New("--server and --device are required (or $WIRECHECK_CORE_URL and $WIRECHECK_DEVICE_ID)")
			}
			credential := os.Getenv(credentialEnv)
			if credential == "" {
				return fmt.Errorf("the daemon credential is read from $%s, which is empty or unset", credentialEnv)
			}
			caps, err := contractCapabilities(withhold)
			if err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return runDaemon(ctx, daemon.Config{
				ServerURL: server, DeviceID: device, Credential: credential,
				WorkspaceDirectory: workspace, DaemonVersion: buildVersion(), Logger: log,
				EnvironmentRoot: envRoot, EnvironmentID: envID, SessionID: sessionID,
			}, caps, log)
		},
	}
	f := cmd.Flags()
	f.StringVar(&server, "server", os.Getenv("WIRECHECK_CORE_URL"), "Core's base URL, ending in /api/v1 (default $WIRECHECK_CORE_URL)")
	f.StringVar(&device, "device", os.Getenv("WIRECHECK_DEVICE_ID"), "the device ID this daemon presents (default $WIRECHECK_DEVICE_ID)")
	f.StringVar(&credentialEnv, "credential-env", defaultCredentialEnv, "the environment variable that holds the daemon credential")
	f.StringVar(&workspace, "workspace", "", "the daemon's bound workspace directory (default /workspace)")
	f.StringVar(&envRoot, "environment-root", "", "the directory of the Environment runtime_prepare installs into (default: a temporary directory removed at exit)")
	f.StringVar(&envID, "environment-id", "", "the bound Environment ID (default: adopted from the first runtime_prepare begin)")
	f.StringVar(&sessionID, "session-id", "", "the bound Session ID, with --environment-id")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringSliceVar(&withhold, "withhold", nil, "capabilities the contract kind leaves undeclared (comma-separated), to test what a Runtime without them answers")
	return cmd
}

// runDaemon runs the daemon with the contract Harness on the wall clock until ctx ends (nil) or a
// permanent refusal (an exitError with that refusal's exit code).
func runDaemon(ctx context.Context, cfg daemon.Config, caps proto.AgentKindCapabilities, log *slog.Logger) error {
	cfg.Clock = clock.Real()
	// contract-unavailable is advertised available: false for good (docs/contract-harness.md §1.1).
	cfg.Harnesses = []harness.Harness{contract.New(cfg.Clock, caps), contract.NewUnavailable(cfg.Clock)}
	d, err := daemon.New(cfg)
	if err != nil {
		return err
	}
	log.Info("starting the reference Runtime", "server", cfg.ServerURL, "device", cfg.DeviceID, "version", cfg.DaemonVersion)
	err = d.Run(ctx)
	switch {
	case err == nil:
		log.Info("stopped: native work settled and every Executor closed")
		return nil
	case errors.Is(err, daemon.ErrIncompatibleVersion):
		return &exitError{code: exitIncompatible, err: oneLine(err)}
	case errors.Is(err, daemon.ErrPermanent):
		return &exitError{code: exitRefused, err: oneLine(err)}
	}
	return err
}

// contractCapabilities is the reference's declaration of kind contract without the capabilities
// --withhold names.
func contractCapabilities(withhold []string) (proto.AgentKindCapabilities, error) {
	caps := daemon.ContractCapabilities()
	for _, name := range withhold {
		if _, ok := caps.Get(name); !ok {
			return caps, fmt.Errorf("--withhold %q: not a capability (one of %s)", name, strings.Join(proto.CapabilityNames(), ", "))
		}
		caps.Set(name, proto.Unsupported)
	}
	return caps, nil
}

// oneLine keeps a refusal on one line of stderr: its detail comes from the peer.
func oneLine(err error) error {
	s := strings.Join(strings.Fields(err.Error()), " ")
	return errors.New(s)
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("--log-level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

func buildVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return "wirecheck-" + info.Main.Version
	}
	return "wirecheck-(devel)"
}

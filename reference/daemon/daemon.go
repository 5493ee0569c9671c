package daemon

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/environment"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
	"github.com/wirecheck/wirecheck/transport"
)

// Daemon is the reference Runtime daemon.
type Daemon struct {
	cfg       Config
	log       *slog.Logger
	harnesses map[string]harness.Harness
	kinds     []proto.SupportedAgentKind // the advertisement of every heartbeat

	serving bool                     // a Harness declares local_environment: the daemon has an Environment
	env     *environment.Environment // bound while Run runs
	bind    binding
	susp    suspension // outlives connections, like the binding
}

// New validates the configuration and every Harness declaration.
func New(cfg Config) (*Daemon, error) {
	cfg.defaults()
	if cfg.ServerURL == "" || cfg.DeviceID == "" {
		return nil, errors.New("runtime: the server URL and the device ID are required")
	}
	d := &Daemon{cfg: cfg, log: cfg.Logger, harnesses: map[string]harness.Harness{}}
	for _, h := range cfg.Harnesses {
		caps := h.Capabilities()
		if err := caps.Validate(); err != nil {
			// Registration validates the complete declaration before changing the registry.
			return nil, errors.New("runtime: harness " + h.Kind() + ": " + err.Error())
		}
		if _, dup := d.harnesses[h.Kind()]; dup {
			return nil, errors.New("runtime: two harnesses of kind " + h.Kind())
		}
		d.harnesses[h.Kind()] = h
		d.kinds = append(d.kinds, proto.SupportedAgentKind{Kind: h.Kind(), Available: h.Available(), Version: h.Version(), Capabilities: &caps})
		d.serving = d.serving || caps.LocalEnvironment.Supported()
	}
	d.bind.environment, d.bind.session = cfg.EnvironmentID, cfg.SessionID
	return d, nil
}

// Run connects and serves until ctx ends (nil) or a permanent failure (an error matching
// ErrPermanent) stops it after exactly one attempt. Transient failures reconnect with backoff; a
// connection that was established and then lost is redialled at once, but only after the old
// connection's native work has settled and its Executors are closed.
func (d *Daemon) Run(ctx context.Context) error {
	// net/http lets a dial outlive the request that asked for it; closing idle connections also
	// cancels such dials, so none is left connecting after the daemon stops.
	defer d.cfg.HTTPClient.CloseIdleConnections()
	defer forgetCarried(d)
	if d.serving {
		env, err := d.openEnvironment()
		if err != nil {
			return err
		}
		d.env = env
		defer func() {
			if err := env.Close(); err != nil {
				d.log.Warn("the Environment could not be closed", "err", err)
			}
		}()
	}
	var backoff time.Duration
	for {
		connected, err := d.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if !connected && mutation.On(mutation.TransientRefusalStops) {
			return err
		}
		if errors.Is(err, ErrPermanent) && !permanentTakenForTransient(err) {
			d.log.Error("stopping: the connection was refused for good", "err", err)
			return err
		}
		switch {
		case connected, mutation.On(mutation.ReconnectWithoutBackoff):
			backoff = 0
		case backoff == 0:
			backoff = time.Second
		default:
			backoff = min(2*backoff, d.cfg.MaxBackoff)
		}
		d.log.Warn("connection lost; reconnecting", "err", err, "backoff", backoff)
		if backoff > 0 {
			t := d.cfg.Clock.NewTimer(backoff)
			select {
			case <-t.C():
			case <-ctx.Done():
				t.Stop()
				return nil
			}
		}
	}
}

// session runs one physical connection. connected reports whether the WebSocket was established.
func (d *Daemon) session(ctx context.Context) (connected bool, err error) {
	boot, err := d.bootstrap(ctx)
	if err != nil {
		return false, err
	}
	ws, err := d.dial(ctx, boot.WSURL)
	if err != nil {
		return false, err
	}
	d.log.Info("connected", "device", d.cfg.DeviceID)
	r := newRouter(d, ws)
	err = r.serve(ctx, heartbeatInterval(boot))
	return true, err
}

// closeError classifies how the transport ended.
func closeError(err error) error {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		switch int(ce.Code) {
		case proto.CloseRuntimeDeleted:
			return &RetiredError{Reason: ce.Reason}
		case proto.CloseNormal, proto.CloseGoingAway:
			return errors.New("core closed the connection: " + ce.Reason)
		}
	}
	return err
}

// openEnvironment binds the Environment: Config.EnvironmentRoot, else a temporary directory.
func (d *Daemon) openEnvironment() (*environment.Environment, error) {
	if d.cfg.EnvironmentRoot != "" {
		return environment.Open(d.cfg.EnvironmentRoot)
	}
	return environment.Temp()
}

// bindingApplies checks a local_environment against the daemon's binding (AD-64): the workspace
// directory is its own, network_access is its policy (enabled) or absent, and the ID is the bound
// Environment's once one is bound.
func (d *Daemon) bindingApplies(le *proto.LocalEnvironment) bool {
	if le.WorkspaceDirectory != d.cfg.WorkspaceDirectory {
		return false
	}
	if le.NetworkAccess != "" && le.NetworkAccess != "enabled" && !mutation.On(mutation.ADNetworkPolicyUnchecked) {
		return false
	}
	id := d.bind.environmentID()
	return id == "" || id == le.ID || mutation.On(mutation.ADOtherEnvironmentIDAccepted)
}

// heartbeatInterval is how often the connection heartbeats: the bootstrap's heartbeat_seconds,
// 15 s when that is zero or less (CN-24).
func heartbeatInterval(boot *proto.BootstrapResponse) time.Duration {
	if d, ok := cnHeartbeatInterval(boot); ok {
		return d
	}
	switch {
	case mutation.On(mutation.HeartbeatIntervalIgnored):
		return proto.DefaultHeartbeatInterval
	case mutation.On(mutation.HeartbeatNonPositiveNoRepeat) && boot.HeartbeatSeconds <= 0:
		return 24 * time.Hour
	}
	return transport.HeartbeatInterval(boot)
}

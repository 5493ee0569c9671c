package daemon

import (
	"context"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
	"github.com/wirecheck/wirecheck/transport"
)

// ErrPermanent matches every failure that needs operator correction: 401, 403 and 426 answers and
// a 4001 close. The daemon stops after exactly one attempt.
var ErrPermanent = transport.ErrPermanent

// ErrIncompatibleVersion matches a 426 incompatible_version answer.
var ErrIncompatibleVersion = transport.ErrIncompatibleVersion

// RetiredError is a 4001 close: Core retired this runtime.
type RetiredError struct{ Reason string }

func (e *RetiredError) Error() string        { return "core retired this runtime (4001): " + e.Reason }
func (e *RetiredError) Is(target error) bool { return target == ErrPermanent }

// withClockTimeout is context.WithTimeout on the injected clock.
func withClockTimeout(ctx context.Context, c clock.Clock, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	t := c.NewTimer(d)
	go func() {
		select {
		case <-t.C():
			cancel()
		case <-ctx.Done():
			t.Stop()
		}
	}()
	return ctx, cancel
}

func (d *Daemon) client() transport.Client {
	return transport.Client{HTTP: d.cfg.HTTPClient, UserAgent: "wirecheck-runtime/" + d.cfg.DaemonVersion}
}

func (d *Daemon) identity() transport.Identity {
	return transport.Identity{DeviceID: d.cfg.DeviceID, Credential: d.cfg.Credential, Version: proto.Version}
}

func (d *Daemon) bootstrap(ctx context.Context) (*proto.BootstrapResponse, error) {
	return d.client().Bootstrap(ctx, d.cfg.ServerURL, d.identity())
}

func (d *Daemon) dial(ctx context.Context, wsURL string) (*websocket.Conn, error) {
	id := d.identity()
	if mutation.On(mutation.LegacyTokenSent) && strings.Contains(wsURL, "token=") {
		id.CredentialInQuery = true
	}
	return d.client().Dial(ctx, wsURL, id)
}

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
	// The handshake timeout (CN-21) runs on the daemon's clock; the transport's own wall-clock
	// guard of the same length stays as the socket's backstop.
	timeout := proto.HandshakeTimeout
	if mutation.On(mutation.StallHandshakeShort) {
		timeout /= 2
	}
	if !mutation.On(mutation.StallHandshakeUnbounded) {
		var cancel context.CancelFunc
		ctx, cancel = withClockTimeout(ctx, d.cfg.Clock, timeout)
		defer cancel()
	}
	ws, err := d.client().Dial(ctx, wsURL, id)
	if err == nil && mutation.On(mutation.StallFrameLimitLifted) {
		ws.SetReadLimit(4 * proto.MaxFrameBytes)
	}
	return ws, err
}

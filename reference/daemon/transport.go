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

func (d *Daemon) client() transport.Client {
	c := transport.Client{HTTP: d.cfg.HTTPClient, UserAgent: "wirecheck-runtime/" + d.cfg.DaemonVersion}
	if _, virtual := d.cfg.Clock.(*clock.Fake); virtual {
		// The handshake timeout runs on the virtual clock (dial): the wall-clock guard is only a
		// safety net, which a starved process must not reach first.
		c.HandshakeGuard = virtualHandshakeGuard
	}
	return c
}

// virtualHandshakeGuard is the wall-clock backstop of an upgrade when the daemon's clock is
// virtual.
const virtualHandshakeGuard = 5 * time.Minute

func (d *Daemon) identity() transport.Identity {
	return transport.Identity{DeviceID: d.cfg.DeviceID, Credential: d.cfg.Credential, Version: proto.Version}
}

func (d *Daemon) bootstrap(ctx context.Context) (*proto.BootstrapResponse, error) {
	if cnBootstrapOn() {
		return d.cnBootstrap(ctx)
	}
	return d.client().Bootstrap(ctx, d.cfg.ServerURL, d.identity())
}

func (d *Daemon) dial(ctx context.Context, wsURL string) (*websocket.Conn, error) {
	id := d.identity()
	if mutation.On(mutation.LegacyTokenSent) && strings.Contains(wsURL, "token=") {
		id.CredentialInQuery = true
	}
	// The handshake timeout (CN-21) runs on the daemon's clock; the transport's own wall-clock
	// guard stays as the socket's backstop (client: a safety net when the clock is virtual).
	timeout := proto.HandshakeTimeout
	if mutation.On(mutation.StallHandshakeShort) {
		timeout /= 2
	}
	if !mutation.On(mutation.StallHandshakeUnbounded) {
		var cancel context.CancelFunc
		ctx, cancel = clock.WithTimeout(ctx, d.cfg.Clock, timeout)
		defer cancel()
	}
	ws, err := d.client().Dial(ctx, wsURL, id)
	if err == nil && mutation.On(mutation.StallFrameLimitLifted) {
		ws.SetReadLimit(4 * proto.MaxFrameBytes)
	}
	return ws, err
}

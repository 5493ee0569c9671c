package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
)

// ErrPermanent matches every failure that needs operator correction: 401, 403 and 426 answers and
// a 4001 close. The daemon stops after exactly one attempt.
var ErrPermanent = errors.New("permanent connection failure")

// ErrIncompatibleVersion matches a 426 incompatible_version answer.
var ErrIncompatibleVersion = errors.New("incompatible wire version")

// RefusedError is a non-2xx answer from bootstrap or the upgrade.
type RefusedError struct {
	Stage  string // bootstrap or dial
	Status int
	Code   string
	Detail string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s refused: %d %s (%s)", e.Stage, e.Status, e.Code, e.Detail)
}

func (e *RefusedError) Is(target error) bool {
	switch target {
	case ErrPermanent:
		return proto.PermanentHTTPStatus(e.Status)
	case ErrIncompatibleVersion:
		return e.Status == http.StatusUpgradeRequired
	}
	return false
}

// RetiredError is a 4001 close: Core retired this runtime.
type RetiredError struct{ Reason string }

func (e *RetiredError) Error() string        { return "core retired this runtime (4001): " + e.Reason }
func (e *RetiredError) Is(target error) bool { return target == ErrPermanent }

func refused(stage string, status int, body []byte) *RefusedError {
	var e proto.HTTPError
	_ = json.Unmarshal(body, &e)
	return &RefusedError{Stage: stage, Status: status, Code: e.Error, Detail: e.Detail}
}

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

func (d *Daemon) bootstrap(ctx context.Context) (*proto.BootstrapResponse, error) {
	body, _ := json.Marshal(proto.BootstrapRequest{DeviceID: d.cfg.DeviceID})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(d.cfg.ServerURL, "/")+"/agent-daemon/bootstrap", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "wirecheck-runtime/"+d.cfg.DaemonVersion)
	req.Header.Set("Authorization", "Bearer "+d.cfg.Credential)
	resp, err := d.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, proto.BootstrapResponseMaxBytes))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, refused("bootstrap", resp.StatusCode, data)
	}
	var out proto.BootstrapResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("bootstrap response: %w", err)
	}
	if out.DeviceID == "" {
		return nil, errors.New("bootstrap response: empty device_id")
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("bootstrap response: %w", err)
	}
	return &out, nil
}

func (d *Daemon) dial(ctx context.Context, wsURL string) (*websocket.Conn, error) {
	u, err := url.Parse(wsURL)
	if err != nil {
		return nil, fmt.Errorf("ws_url: %w", err)
	}
	q := u.Query()
	q.Del("token") // a legacy credential in the URL is never sent
	q.Set(proto.QueryDeviceID, d.cfg.DeviceID)
	q.Set(proto.QueryVersion, proto.Version)
	u.RawQuery = q.Encode()
	h := http.Header{}
	h.Set("Authorization", "Bearer "+d.cfg.Credential)
	ctx, cancel := context.WithTimeout(ctx, proto.HandshakeTimeout) // a socket guard: wall clock, like the write deadline
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, u.String(), &websocket.DialOptions{HTTPHeader: h, HTTPClient: d.cfg.HTTPClient})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			var body []byte
			if resp.Body != nil {
				body, _ = io.ReadAll(resp.Body)
			}
			return nil, refused("dial", resp.StatusCode, body)
		}
		return nil, err
	}
	ws.SetReadLimit(proto.MaxFrameBytes)
	return ws, nil
}

package transport

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
)

// maxAnswerBytes caps what a Runtime reads of a bootstrap answer or a refusal (protocol-facts.md
// §1.2). The WebSocket library hands on at most the first 1 KiB of a refused upgrade anyway.
const maxAnswerBytes = proto.BootstrapResponseMaxBytes

// Identity is what a Runtime presents when it connects.
type Identity struct {
	DeviceID string
	// Credential goes in the Authorization: Bearer header only; empty sends no Authorization
	// header at all.
	Credential string
	// Version is sent as the version query parameter exactly as it is, empty included: a real
	// Runtime sends proto.Version; anything else tests the 426 rule.
	Version string
	// CredentialInQuery also puts the credential in the URL (as token), which a Core must refuse.
	// Only a scripted Runtime testing that rule sets it.
	CredentialInQuery bool
}

// Client bootstraps and dials as a Runtime does.
type Client struct {
	HTTP      *http.Client // default http.DefaultClient
	UserAgent string       // sent on bootstrap when not empty
	// Strict holds a 2xx bootstrap answer to every member of protocol-facts.md §1.2 (see
	// CheckBootstrapAnswer): what a tester of Cores wants, where a Runtime reads leniently.
	Strict bool
	// HandshakeGuard is the wall-clock backstop of an upgrade (default proto.HandshakeTimeout). A
	// caller that runs the handshake timeout on a virtual clock of its own sets a longer one: a
	// safety net a loaded machine cannot reach before the virtual timeout is due.
	HandshakeGuard time.Duration
}

func (c Client) httpClient() *http.Client {
	if c.HTTP == nil {
		return http.DefaultClient
	}
	return c.HTTP
}

// Bootstrap calls POST {serverURL}/agent-daemon/bootstrap (serverURL ends in /api/v1) and returns
// the connection parameters. A non-2xx answer is a *Refusal.
func (c Client) Bootstrap(ctx context.Context, serverURL string, id Identity) (*proto.BootstrapResponse, error) {
	body, _ := json.Marshal(proto.BootstrapRequest{DeviceID: id.DeviceID})
	return c.BootstrapWith(ctx, serverURL, id, http.MethodPost, body)
}

// BootstrapWith is Bootstrap with the request's method and body as given: what no Runtime sends,
// for a scripted Runtime to reach the bootstrap's own refusals (405, bad_json, missing_device_id).
func (c Client) BootstrapWith(ctx context.Context, serverURL string, id Identity, method string, body []byte) (*proto.BootstrapResponse, error) {
	target := strings.TrimSuffix(serverURL, "/") + strings.TrimPrefix(proto.RouteBootstrap, proto.APIPrefix)
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	setBearer(req.Header, id.Credential)
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, DecodeRefusal(StageBootstrap, resp.StatusCode, data)
	}
	if c.Strict {
		if err := CheckBootstrapAnswer(data, id.DeviceID); err != nil {
			return nil, err
		}
	}
	return DecodeBootstrapAnswer(data)
}

// Dial opens the WebSocket at wsURL (a bootstrap answer's ws_url) with device_id and version in
// the query and the credential in the Authorization header only. A legacy token parameter in
// wsURL is dropped: a credential never travels in a URL (protocol-facts.md §1.1). A non-101
// answer is a *Refusal.
func (c Client) Dial(ctx context.Context, wsURL string, id Identity) (*websocket.Conn, error) {
	u, err := url.Parse(wsURL)
	if err != nil {
		return nil, fmt.Errorf("ws_url: %w", err)
	}
	q := u.Query()
	q.Del("token")
	q.Set(proto.QueryDeviceID, id.DeviceID)
	q.Set(proto.QueryVersion, id.Version)
	if id.CredentialInQuery {
		q.Set("token", id.Credential)
	}
	u.RawQuery = q.Encode()
	h := http.Header{}
	setBearer(h, id.Credential)
	return upgrade(ctx, u.String(), &websocket.DialOptions{HTTPHeader: h, HTTPClient: c.httpClient()}, cmp.Or(c.HandshakeGuard, proto.HandshakeTimeout))
}

// Upgrade dials a WebSocket within the handshake timeout and sets the protocol's read limit. A
// non-101 answer is a *Refusal carrying the answer as it came.
func Upgrade(ctx context.Context, wsURL string, opts *websocket.DialOptions) (*websocket.Conn, error) {
	return upgrade(ctx, wsURL, opts, proto.HandshakeTimeout)
}

func upgrade(ctx context.Context, wsURL string, opts *websocket.DialOptions, guard time.Duration) (*websocket.Conn, error) {
	// A socket guard: wall clock, like the per-frame write deadline.
	ctx, cancel := context.WithTimeout(ctx, guard)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, wsURL, opts)
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			var body []byte
			if resp.Body != nil {
				body, _ = io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
			}
			ref := DecodeRefusal(StageDial, resp.StatusCode, body)
			ref.ContentType = resp.Header.Get("Content-Type")
			return nil, ref
		}
		return nil, err
	}
	ws.SetReadLimit(proto.MaxFrameBytes)
	return ws, nil
}

func setBearer(h http.Header, credential string) {
	if credential != "" {
		h.Set("Authorization", "Bearer "+credential)
	}
}

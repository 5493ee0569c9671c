package scriptedruntime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/transport"
)

// client makes one request per connection attempt; no idle keep-alive connection outlives a run.
var client = func() transport.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableKeepAlives = true
	return transport.Client{HTTP: &http.Client{Transport: t}, UserAgent: "wirecheck-scriptedruntime", Strict: true}
}()

// bootstrapAndDial connects as id, bootstrapping with a malformed request if h says so and leaving
// out of the upgrade what h.UpgradeWithout names; a refusal comes back as a *refused.
func bootstrapAndDial(ctx context.Context, client *transport.Client, serverURL string, id transport.Identity, h *scenarios.Handshake) (*websocket.Conn, error) {
	var without []string
	var boot *proto.BootstrapResponse
	var err error
	switch {
	case h != nil && h.Bootstrap != nil:
		body, _ := json.Marshal(proto.BootstrapRequest{DeviceID: id.DeviceID})
		if h.Bootstrap.Body != nil {
			body = []byte(*h.Bootstrap.Body)
		}
		boot, err = client.BootstrapWith(ctx, serverURL, id, h.Bootstrap.Method, body)
	default:
		boot, err = client.Bootstrap(ctx, serverURL, id)
	}
	if h != nil {
		without = h.UpgradeWithout
	}
	if err != nil {
		return nil, explain(err)
	}
	var ws *websocket.Conn
	if len(without) == 0 {
		ws, err = client.Dial(ctx, boot.WSURL, id)
	} else {
		ws, err = dialWithout(ctx, client, boot.WSURL, id, without)
	}
	if err != nil {
		return nil, explain(err)
	}
	return ws, nil
}

// dialWithout is transport.Client.Dial with some of the upgrade's parameters left out: what no
// real Runtime does, to reach the upgrade's missing_params rule after a valid bootstrap.
func dialWithout(ctx context.Context, client *transport.Client, wsURL string, id transport.Identity, without []string) (*websocket.Conn, error) {
	u, err := url.Parse(wsURL)
	if err != nil {
		return nil, fmt.Errorf("ws_url: %w", err)
	}
	q := u.Query()
	if !slices.Contains(without, scenarios.UpgradeDeviceID) {
		q.Set(proto.QueryDeviceID, id.DeviceID)
	}
	if !slices.Contains(without, scenarios.UpgradeVersion) {
		q.Set(proto.QueryVersion, id.Version)
	}
	if id.CredentialInQuery {
		q.Set("token", id.Credential) // the credential where it never belongs (CN-03)
	}
	u.RawQuery = q.Encode()
	h := http.Header{}
	if !slices.Contains(without, scenarios.UpgradeBearer) && id.Credential != "" {
		h.Set("Authorization", "Bearer "+id.Credential)
	}
	return transport.Upgrade(ctx, u.String(), &websocket.DialOptions{HTTPHeader: h, HTTPClient: client.HTTP})
}

// refused is a Core's refusal in the words of the scripted Runtime's reports.
type refused struct{ *transport.Refusal }

func (r *refused) Error() string {
	return fmt.Sprintf("%s refused with %d %s (%s)", r.Stage, r.Status, r.Code, r.Detail)
}

func (r *refused) Unwrap() error { return r.Refusal }

func explain(err error) error {
	var ref *transport.Refusal
	if errors.As(err, &ref) {
		return &refused{ref}
	}
	return err
}

// identity is who the scripted Runtime presents: its configuration, then a handshake scenario's
// overrides.
func identity(cfg Config, h *scenarios.Handshake) transport.Identity {
	id := transport.Identity{DeviceID: cfg.DeviceID, Credential: cfg.Credential, Version: proto.Version}
	if h == nil {
		return id
	}
	if h.DeviceID != nil {
		id.DeviceID = *h.DeviceID
	}
	if h.Credential != nil {
		id.Credential = *h.Credential
	}
	if h.Version != nil {
		id.Version = *h.Version
	}
	id.CredentialInQuery = h.CredentialInQuery
	return id
}

package scriptedruntime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
)

// identity is what the scripted Runtime presents.
type identity struct {
	deviceID, credential, version string
	credentialInQuery             bool
}

// httpRefusal is a non-2xx answer to bootstrap or the upgrade.
type httpRefusal struct {
	stage  string // "bootstrap" or "dial"
	status int
	code   string // the error body's code
	detail string
}

func (r *httpRefusal) Error() string {
	return fmt.Sprintf("%s refused with %d %s (%s)", r.stage, r.status, r.code, r.detail)
}

func refusal(stage string, status int, body []byte) *httpRefusal {
	var e proto.HTTPError
	_ = json.Unmarshal(body, &e)
	return &httpRefusal{stage: stage, status: status, code: e.Error, detail: e.Detail}
}

func bearer(h http.Header, credential string) {
	if credential != "" {
		h.Set("Authorization", "Bearer "+credential)
	}
}

// client makes one request per connection attempt; no idle keep-alive connection outlives a run.
var client = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableKeepAlives = true
	return &http.Client{Transport: t}
}()

// bootstrap calls POST {server}/agent-daemon/bootstrap and returns the connection parameters.
func bootstrap(ctx context.Context, serverURL string, id identity) (*proto.BootstrapResponse, error) {
	body, _ := json.Marshal(proto.BootstrapRequest{DeviceID: id.deviceID})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(serverURL, "/")+"/agent-daemon/bootstrap", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "wirecheck-scriptedruntime")
	bearer(req.Header, id.credential)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, proto.BootstrapResponseMaxBytes))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, refusal("bootstrap", resp.StatusCode, data)
	}
	var out proto.BootstrapResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("bootstrap response: %w", err)
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("bootstrap response: %w", err)
	}
	return &out, nil
}

// dial opens the WebSocket with device_id and version in the query and the credential only in the
// header (unless a scenario puts it in the query on purpose).
func dial(ctx context.Context, wsURL string, id identity) (*websocket.Conn, error) {
	u, err := url.Parse(wsURL)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set(proto.QueryDeviceID, id.deviceID)
	q.Set(proto.QueryVersion, id.version)
	if id.credentialInQuery {
		q.Set("token", id.credential)
	}
	u.RawQuery = q.Encode()
	h := http.Header{}
	bearer(h, id.credential)
	ctx, cancel := context.WithTimeout(ctx, proto.HandshakeTimeout)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, u.String(), &websocket.DialOptions{HTTPHeader: h, HTTPClient: client})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			var body []byte
			if resp.Body != nil {
				body, _ = io.ReadAll(resp.Body)
			}
			return nil, refusal("dial", resp.StatusCode, body)
		}
		return nil, err
	}
	return ws, nil
}

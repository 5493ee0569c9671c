package transport_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/transport"
)

// A bootstrap answer that decodes names a device and an absolute ws(s) URL, and encodes back to
// an answer that decodes to the same value.
func FuzzDecodeBootstrapAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"device_id":"d","workspace_id":"w","ws_url":"ws://core:8080/api/v1/agent-daemon/ws","heartbeat_seconds":15,"protocol_version":"0.11.0"}`,
		`{"device_id":"d","ws_url":"wss://core/api/v1/agent-daemon/ws","later_member":{"x":[1,2]}}`,
		`{"device_id":"","ws_url":"ws://x"}`,
		`{"device_id":"d","ws_url":"http://x"}`,
		`{"device_id":"d","ws_url":"ws:/"}`,
		`{"device_id":"d","ws_url":"ws://x","heartbeat_seconds":-1}`,
		`{"device_id":"d","ws_url":"ws://x","heartbeat_seconds":1e99}`,
		`{"device_id":7}`, `null`, `[]`, ``, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := transport.DecodeBootstrapAnswer(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "bootstrap response: ") {
				t.Fatalf("error %q does not say what it was decoding", err)
			}
			return
		}
		if b.DeviceID == "" || !(strings.HasPrefix(b.WSURL, "ws://") || strings.HasPrefix(b.WSURL, "wss://")) {
			t.Fatalf("accepted %+v", b)
		}
		if transport.HeartbeatInterval(b) <= 0 {
			t.Fatalf("heartbeat interval %v from %d", transport.HeartbeatInterval(b), b.HeartbeatSeconds)
		}
		again, _ := json.Marshal(b)
		b2, err := transport.DecodeBootstrapAnswer(again)
		if err != nil || !reflect.DeepEqual(b, b2) {
			t.Fatalf("round trip: %+v → %s → %+v, %v", b, again, b2, err)
		}
	})
}

// Any body decodes into a refusal that keeps the status and the bytes; the shared error body
// gives its code and detail back.
func FuzzDecodeRefusal(f *testing.F) {
	f.Add(401, []byte(`{"error":"bad_credential","detail":"the credential does not match the device"}`))
	f.Add(426, []byte(`{"error":"incompatible_version"}`))
	f.Add(502, []byte(`<html>bad gateway</html>`))
	f.Add(400, []byte(`{"error":7,"detail":"x"}`))
	f.Add(500, []byte(``))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		ref := transport.DecodeRefusal(transport.StageDial, status, body)
		if ref.Status != status || string(ref.Body) != string(body) || ref.Stage != transport.StageDial {
			t.Fatalf("refusal %+v", ref)
		}
		var e proto.HTTPError
		if json.Unmarshal(body, &e) == nil && (ref.Code != e.Error || ref.Detail != e.Detail) {
			t.Fatalf("body %q: code %q detail %q", body, ref.Code, ref.Detail)
		}
		_ = ref.Error()
	})
}

// Whatever a Runtime sends to bootstrap, the answer is either a device that passed every check or
// a rejection whose status is its code's, and it never repeats the credential.
func FuzzCheckBootstrap(f *testing.F) {
	f.Add(`{"device_id":"device-1"}`, "Bearer "+secret, "")
	f.Add(`{"device_id":" "}`, "Bearer "+secret, "")
	f.Add(`{"device_id":"device-1"}`, "Bearer  "+secret+" ", "x="+secret)
	f.Add(`{"device_id":"nope"}`, "Basic x", "token=")
	f.Add(`{`, "", "")
	f.Fuzz(func(t *testing.T, body, authorization, query string) {
		r := httptest.NewRequest(http.MethodPost, "http://core.example"+proto.RouteBootstrap, strings.NewReader(body))
		r.URL.RawQuery = query
		r.Header.Set("Authorization", authorization)
		rules := transport.Rules{Auth: transport.OneDevice{DeviceID: device, Credential: secret, WorkspaceID: "w"}}
		dev, rej := rules.CheckBootstrap(r)
		if rej == nil {
			if dev.ID != device || inQuery(r, secret) {
				t.Fatalf("accepted %+v for %q %q %q", dev, body, authorization, query)
			}
			return
		}
		if rej.Status != proto.HTTPStatusFor(rej.Code) || strings.Contains(rej.Detail, secret) || rej.Check == "" {
			t.Fatalf("rejection %+v", rej)
		}
	})
}

func inQuery(r *http.Request, s string) bool {
	for key, vals := range r.URL.Query() {
		if key == s || slices.Contains(vals, s) {
			return true
		}
	}
	return false
}

// A credential that Bearer returns is what followed "Bearer ", trimmed, and never empty.
func FuzzBearer(f *testing.F) {
	for _, seed := range []string{"Bearer abc", "Bearer  abc ", "Bearer ", "bearer abc", "Basic abc", "", "Bearer \x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		h := http.Header{"Authorization": {header}}
		got, ok := transport.Bearer(h)
		if !ok {
			if got != "" {
				t.Fatalf("%q: not ok but %q", header, got)
			}
			return
		}
		if got == "" || got != strings.TrimSpace(got) || !strings.HasPrefix(header, "Bearer ") || !strings.Contains(header, got) {
			t.Fatalf("%q: %q", header, got)
		}
	})
}

// A strictly checked bootstrap answer is one the lenient decoder accepts too, and every member of
// §1.2 is there; a refusal names the member and the rule.
func FuzzCheckBootstrapAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"device_id":"d","workspace_id":"w","ws_url":"ws://core/api/v1/agent-daemon/ws","heartbeat_seconds":15,"protocol_version":"0.11.0"}`,
		`{"device_id":"d","workspace_id":"w","ws_url":"ws://x","heartbeat_seconds":15,"protocol_version":"v","later":1}`,
		`{"device_id":"other","workspace_id":"w","ws_url":"ws://x","heartbeat_seconds":15,"protocol_version":"v"}`,
		`{"device_id":"d","workspace_id":"","ws_url":"ws://x","heartbeat_seconds":15,"protocol_version":"v"}`,
		`{"device_id":"d","workspace_id":"w","ws_url":"http://x","heartbeat_seconds":15,"protocol_version":"v"}`,
		`{"device_id":"d","workspace_id":"w","ws_url":"ws://x","heartbeat_seconds":"15","protocol_version":"v"}`,
		`{"device_id":"d","workspace_id":"w","ws_url":"ws://x","protocol_version":"v"}`,
		`null`, `[]`, ``, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := transport.CheckBootstrapAnswer(data, "d")
		if err != nil {
			var bad *transport.BadAnswer
			if !errors.As(err, &bad) || bad.Member == "" || !strings.Contains(err.Error(), "CN-01") {
				t.Fatalf("error %v does not name the member and the rule", err)
			}
			return
		}
		b, derr := transport.DecodeBootstrapAnswer(data)
		if derr != nil {
			t.Fatalf("strictly accepted, leniently refused: %v", derr)
		}
		if b.DeviceID != "d" || b.WorkspaceID == "" || b.ProtocolVersion == "" {
			t.Fatalf("accepted %+v", b)
		}
	})
}

package transport_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/transport"
)

// A refusal is explained in words that name what the daemon did: every missing upgrade member,
// the versions, the name (never the value) of a URL parameter carrying the credential.
func TestExplainNamesWhatTheDaemonDid(t *testing.T) {
	const device, secret = "dev-1", "wck_secret_value"
	rules := transport.Rules{Auth: transport.OneDevice{DeviceID: device, Credential: secret, WorkspaceID: "w"}}
	ws := func(query, auth string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "http://core"+proto.RouteWebSocket+"?"+query, nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		return r
	}
	bootstrap := func(body, auth string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "http://core"+proto.RouteBootstrap, strings.NewReader(body))
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		return r
	}
	for _, c := range []struct {
		name string
		req  *http.Request
		want string
	}{
		{"an old daemon: credential in the URL, no header, old version",
			ws("device_id=dev-1&version=0.2.0&token="+secret, ""),
			`the daemon's WebSocket upgrade lacks the Authorization: Bearer header; its credential travels in the URL instead (query parameter "token"), where it must never appear` +
				`; it also speaks wire version "0.2.0", where this Core speaks ` + proto.Version + " only"},
		{"every missing member at once",
			ws("", ""),
			"the daemon's WebSocket upgrade lacks the device_id query parameter, the version query parameter and the Authorization: Bearer header"},
		{"the version against the one spoken",
			ws("device_id=dev-1&version=0.2.0", "Bearer "+secret),
			`the daemon speaks wire version "0.2.0"; this Core speaks ` + proto.Version + " only (the version must match exactly)"},
		{"a credential in the URL beside a valid header",
			ws("device_id=dev-1&version="+proto.Version+"&auth="+secret, "Bearer "+secret),
			`the daemon puts a credential in the URL (query parameter "auth"); it must travel only in the Authorization: Bearer header`},
		{"an old daemon's bootstrap: the credential in the URL, no header (one cause, both halves named)",
			httptest.NewRequest(http.MethodPost, "http://core"+proto.RouteBootstrap+"?token="+secret, strings.NewReader(`{"device_id":"dev-1"}`)),
			`the daemon sends no Authorization: Bearer header; its credential travels in the URL instead (query parameter "token"), where it must never appear`},
		{"bootstrap without a Bearer header",
			bootstrap(`{"device_id":"dev-1"}`, ""),
			"the daemon sends no Authorization: Bearer header"},
		{"a header that is not Bearer",
			bootstrap(`{"device_id":"dev-1"}`, "Basic xyz"),
			`the daemon's Authorization header is not "Bearer <credential>"`},
		{"an unknown device",
			bootstrap(`{"device_id":"dev-2"}`, "Bearer "+secret),
			`the daemon presented device_id "dev-2", which this Core does not know`},
		{"the wrong credential",
			bootstrap(`{"device_id":"dev-1"}`, "Bearer wck_other"),
			`the daemon's Bearer credential is not the one issued to device "dev-1"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			check := rules.CheckBootstrap
			if c.req.Method == http.MethodGet {
				check = rules.CheckUpgrade
			}
			_, rej := check(c.req)
			if rej == nil {
				t.Fatal("the request was accepted")
			}
			got := rules.Explain(c.req, rej)
			if got != c.want {
				t.Errorf("Explain:\n got %s\nwant %s", got, c.want)
			}
			if strings.Contains(got, secret) {
				t.Errorf("the explanation repeats the credential: %s", got)
			}
		})
	}
}

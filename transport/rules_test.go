package transport_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/transport"
)

const (
	device = "device-1"
	secret = "the-device-credential"
)

// auth knows device-1 (secret), device-2 (other), a device whose credential is an API key, and a
// device whose lookup fails.
type auth struct{}

var errStoreDown = errors.New("store down")

func (auth) Authenticate(deviceID, credential string) (string, error) {
	creds := map[string]string{device: secret, "device-2": "other"}
	switch want, ok := creds[deviceID]; {
	case deviceID == "api-key-device":
		return "", transport.ErrWrongRuntime
	case deviceID == "broken-device":
		return "", errStoreDown
	case !ok:
		return "", transport.ErrUnknownDevice
	case want != credential:
		return "", transport.ErrBadCredential
	}
	return "ws-1", nil
}

type route int

const (
	bootstrap route = iota
	deviceStatus
	upgrade
)

// request is one request to a route, as a Runtime could send it.
type request struct {
	route  route
	method string // default: the route's own
	query  string // raw query, without "?"
	auth   string // the Authorization header; "" sends none
	body   string // bootstrap body; default {"device_id":"device-1"}
}

func (q request) build() *http.Request {
	path, method, body := proto.RouteWebSocket, http.MethodGet, ""
	switch q.route {
	case bootstrap:
		path, method, body = proto.RouteBootstrap, http.MethodPost, `{"device_id":"device-1"}`
	case deviceStatus:
		path = proto.RouteDeviceStatus
	}
	if q.method != "" {
		method = q.method
	}
	if q.body != "" {
		body = q.body
	}
	target := "http://core.example" + path
	if q.query != "" {
		target += "?" + q.query
	}
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if q.auth != "" {
		r.Header.Set("Authorization", q.auth)
	}
	return r
}

func check(rules transport.Rules, q request) (transport.Device, *transport.Rejection) {
	switch q.route {
	case bootstrap:
		return rules.CheckBootstrap(q.build())
	case deviceStatus:
		return rules.CheckDeviceStatus(q.build())
	}
	return rules.CheckUpgrade(q.build())
}

const (
	bearer  = "Bearer " + secret
	wsQuery = "device_id=device-1&version=" + proto.Version
)

func TestRulesAcceptAWellFormedRequest(t *testing.T) {
	rules := transport.Rules{Auth: auth{}}
	for name, q := range map[string]request{
		"bootstrap":                        {route: bootstrap, auth: bearer},
		"bootstrap with unknown members":   {route: bootstrap, auth: bearer, body: `{"device_id":"device-1","extra":1}`},
		"bootstrap with spaces around":     {route: bootstrap, auth: "Bearer   " + secret + "  "},
		"device-status":                    {route: deviceStatus, auth: bearer, query: "device_id=device-1"},
		"upgrade":                          {route: upgrade, auth: bearer, query: wsQuery},
		"upgrade with an unrelated member": {route: upgrade, auth: bearer, query: wsQuery + "&client=x"},
	} {
		t.Run(name, func(t *testing.T) {
			dev, rej := check(rules, q)
			if rej != nil {
				t.Fatalf("rejected: %v", rej)
			}
			if dev != (transport.Device{ID: device, WorkspaceID: "ws-1"}) {
				t.Fatalf("device %+v", dev)
			}
		})
	}
}

// Every rule, its check, status and code; where two rules fail, the earlier one answers.
func TestRulesRejectInOrder(t *testing.T) {
	rules := transport.Rules{Auth: auth{}}
	for _, tc := range []struct {
		name  string
		req   request
		check transport.Check
		code  string
	}{
		// bootstrap: method · body · device_id · authentication
		{"bootstrap is POST", request{route: bootstrap, method: http.MethodGet, auth: bearer}, transport.CheckMethod, proto.HTTPMethodNotAllowed},
		{"method before body", request{route: bootstrap, method: http.MethodPut, body: "{"}, transport.CheckMethod, proto.HTTPMethodNotAllowed},
		{"bootstrap body not JSON", request{route: bootstrap, auth: bearer, body: "{"}, transport.CheckBody, proto.HTTPBadJSON},
		{"bootstrap body of the wrong type", request{route: bootstrap, auth: bearer, body: `{"device_id":7}`}, transport.CheckBody, proto.HTTPBadJSON},
		{"bootstrap body over 64 KiB", request{route: bootstrap, auth: bearer, body: `{"device_id":"device-1","pad":"` + strings.Repeat("x", 64<<10) + `"}`}, transport.CheckBody, proto.HTTPBadJSON},
		{"body before credentials", request{route: bootstrap, body: "nope"}, transport.CheckBody, proto.HTTPBadJSON},
		{"bootstrap without device_id", request{route: bootstrap, auth: bearer, body: `{}`}, transport.CheckDeviceID, proto.HTTPMissingDeviceID},
		{"bootstrap with a null body", request{route: bootstrap, auth: bearer, body: `null`}, transport.CheckDeviceID, proto.HTTPMissingDeviceID},
		{"bootstrap with a blank device_id", request{route: bootstrap, auth: bearer, body: `{"device_id":" \t"}`}, transport.CheckDeviceID, proto.HTTPMissingDeviceID},
		{"device_id before credentials", request{route: bootstrap, body: `{"device_id":""}`}, transport.CheckDeviceID, proto.HTTPMissingDeviceID},
		{"bootstrap without Authorization", request{route: bootstrap}, transport.CheckBearer, proto.HTTPMissingBearer},
		{"bootstrap with Basic", request{route: bootstrap, auth: "Basic " + secret}, transport.CheckBearer, proto.HTTPMissingBearer},
		{"bootstrap with an empty Bearer", request{route: bootstrap, auth: "Bearer    "}, transport.CheckBearer, proto.HTTPMissingBearer},
		{"bootstrap with a lower-case scheme", request{route: bootstrap, auth: "bearer " + secret}, transport.CheckBearer, proto.HTTPMissingBearer},
		{"bootstrap, credential in the URL", request{route: bootstrap, auth: bearer, query: "token=x"}, transport.CheckCredentialInURL, proto.HTTPBadCredential},
		{"bootstrap, unknown device", request{route: bootstrap, auth: bearer, body: `{"device_id":"nope"}`}, transport.CheckDevice, proto.HTTPUnknownDevice},
		{"bootstrap, wrong credential", request{route: bootstrap, auth: "Bearer wrong"}, transport.CheckCredential, proto.HTTPBadCredential},
		{"bootstrap, another device's credential", request{route: bootstrap, auth: "Bearer other"}, transport.CheckCredential, proto.HTTPBadCredential},
		{"bootstrap, not a daemon credential", request{route: bootstrap, auth: bearer, body: `{"device_id":"api-key-device"}`}, transport.CheckRuntimeType, proto.HTTPWrongRuntimeType},
		{"bootstrap, the Authenticator fails", request{route: bootstrap, auth: bearer, body: `{"device_id":"broken-device"}`}, transport.CheckInternal, proto.HTTPInternal},

		// device-status: method · device_id · authentication
		{"device-status is GET", request{route: deviceStatus, method: http.MethodPost, auth: bearer, query: "device_id=device-1"}, transport.CheckMethod, proto.HTTPMethodNotAllowed},
		{"device-status without device_id", request{route: deviceStatus, auth: bearer}, transport.CheckDeviceID, proto.HTTPMissingDeviceID},
		{"device-status with a blank device_id", request{route: deviceStatus, auth: bearer, query: "device_id=%20"}, transport.CheckDeviceID, proto.HTTPMissingDeviceID},
		{"device-status, device_id before credentials", request{route: deviceStatus, query: "token=" + secret}, transport.CheckDeviceID, proto.HTTPMissingDeviceID},
		{"device-status, credential in the URL", request{route: deviceStatus, auth: bearer, query: "device_id=device-1&token=" + secret}, transport.CheckCredentialInURL, proto.HTTPBadCredential},
		{"device-status without Bearer", request{route: deviceStatus, query: "device_id=device-1"}, transport.CheckBearer, proto.HTTPMissingBearer},
		{"device-status, unknown device", request{route: deviceStatus, auth: bearer, query: "device_id=nope"}, transport.CheckDevice, proto.HTTPUnknownDevice},

		// upgrade: device_id · version · Authorization (all 400) · version match (426) · authentication
		{"upgrade without device_id", request{route: upgrade, auth: bearer, query: "version=" + proto.Version}, transport.CheckDeviceID, proto.HTTPMissingParams},
		{"upgrade without version", request{route: upgrade, auth: bearer, query: "device_id=device-1"}, transport.CheckVersion, proto.HTTPMissingParams},
		{"upgrade without Authorization", request{route: upgrade, query: wsQuery}, transport.CheckBearer, proto.HTTPMissingParams},
		{"device_id reported before version", request{route: upgrade}, transport.CheckDeviceID, proto.HTTPMissingParams},
		{"version reported before Authorization", request{route: upgrade, query: "device_id=device-1"}, transport.CheckVersion, proto.HTTPMissingParams},
		{"missing parameters before the version", request{route: upgrade, query: "device_id=device-1&version=0.7.0"}, transport.CheckBearer, proto.HTTPMissingParams},
		{"an empty version is a mismatch", request{route: upgrade, auth: bearer, query: "device_id=device-1&version="}, transport.CheckVersionMatch, proto.HTTPIncompatibleVersion},
		{"patch drift", request{route: upgrade, auth: bearer, query: "device_id=device-1&version=0.11.1"}, transport.CheckVersionMatch, proto.HTTPIncompatibleVersion},
		{"a leading space", request{route: upgrade, auth: bearer, query: "device_id=device-1&version=%200.11.0"}, transport.CheckVersionMatch, proto.HTTPIncompatibleVersion},
		{"a build suffix", request{route: upgrade, auth: bearer, query: "device_id=device-1&version=0.11.0%2Bbuild"}, transport.CheckVersionMatch, proto.HTTPIncompatibleVersion},
		{"426 before a wrong credential", request{route: upgrade, auth: "Bearer wrong", query: "device_id=device-1&version=0.11.1"}, transport.CheckVersionMatch, proto.HTTPIncompatibleVersion},
		{"426 before a credential in the URL", request{route: upgrade, auth: bearer, query: "device_id=device-1&version=0.7.0&token=" + secret}, transport.CheckVersionMatch, proto.HTTPIncompatibleVersion},
		{"426 before an unknown device", request{route: upgrade, auth: bearer, query: "device_id=nope&version=garbage"}, transport.CheckVersionMatch, proto.HTTPIncompatibleVersion},
		{"upgrade with Basic", request{route: upgrade, auth: "Basic x", query: wsQuery}, transport.CheckBearer, proto.HTTPMissingBearer},
		{"credential in the URL beside a valid header", request{route: upgrade, auth: bearer, query: wsQuery + "&token=" + secret}, transport.CheckCredentialInURL, proto.HTTPBadCredential},
		{"credential in the URL before a missing Bearer", request{route: upgrade, auth: "Basic x", query: wsQuery + "&access_token=x"}, transport.CheckCredentialInURL, proto.HTTPBadCredential},
		{"the Bearer credential under any name", request{route: upgrade, auth: bearer, query: wsQuery + "&x=" + secret}, transport.CheckCredentialInURL, proto.HTTPBadCredential},
		{"the Bearer credential as a name", request{route: upgrade, auth: bearer, query: wsQuery + "&" + secret}, transport.CheckCredentialInURL, proto.HTTPBadCredential},
		{"upgrade, unknown device", request{route: upgrade, auth: bearer, query: "device_id=nope&version=" + proto.Version}, transport.CheckDevice, proto.HTTPUnknownDevice},
		{"upgrade, wrong credential", request{route: upgrade, auth: "Bearer wrong", query: wsQuery}, transport.CheckCredential, proto.HTTPBadCredential},
		{"upgrade, not a daemon credential", request{route: upgrade, auth: bearer, query: "device_id=api-key-device&version=" + proto.Version}, transport.CheckRuntimeType, proto.HTTPWrongRuntimeType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rej := check(rules, tc.req)
			if rej == nil {
				t.Fatal("accepted")
			}
			if rej.Check != tc.check || rej.Code != tc.code || rej.Status != proto.HTTPStatusFor(tc.code) {
				t.Fatalf("got %s %d %s, want %s %d %s", rej.Check, rej.Status, rej.Code, tc.check, proto.HTTPStatusFor(tc.code), tc.code)
			}
			if strings.Contains(rej.Detail, secret) {
				t.Fatalf("the detail repeats the credential: %q", rej.Detail)
			}
		})
	}
}

// Every parameter name that can only mean a credential is refused, in any case.
func TestRulesRefuseCredentialParameterNames(t *testing.T) {
	rules := transport.Rules{Auth: auth{}}
	for _, key := range []string{"token", "credential", "access_token", "bearer", "authorization", "Token", "ACCESS_TOKEN"} {
		_, rej := check(rules, request{route: upgrade, auth: bearer, query: wsQuery + "&" + key + "="})
		if rej == nil || rej.Check != transport.CheckCredentialInURL {
			t.Errorf("%s: %v, want credential_in_url", key, rej)
		}
	}
}

// An Authenticator that recognises its credentials catches one in the URL under any name, even
// when the header is missing or carries another credential.
func TestRulesAskARecognizerAboutURLValues(t *testing.T) {
	rules := transport.Rules{Auth: transport.OneDevice{DeviceID: device, Credential: secret, WorkspaceID: "w"}}
	for name, q := range map[string]request{
		"no header":    {route: bootstrap, query: "x=" + secret},
		"another one":  {route: upgrade, auth: "Bearer wrong", query: wsQuery + "&x=" + secret},
		"Basic header": {route: deviceStatus, auth: "Basic x", query: "device_id=device-1&y=" + secret},
	} {
		if _, rej := check(rules, q); rej == nil || rej.Check != transport.CheckCredentialInURL {
			t.Errorf("%s: %v, want credential_in_url", name, rej)
		}
	}
	// Without a recognizer, the same request is answered by the next rule.
	if _, rej := check(transport.Rules{Auth: auth{}}, request{route: bootstrap, query: "x=" + secret}); rej == nil || rej.Check != transport.CheckBearer {
		t.Errorf("without a recognizer: %v, want bearer", rej)
	}
}

func TestRulesVersionDefaultsToProtoVersion(t *testing.T) {
	shifted := transport.Rules{Version: proto.Version + "-not-x", Auth: auth{}}
	if _, rej := check(shifted, request{route: upgrade, auth: bearer, query: wsQuery}); rej == nil || rej.Check != transport.CheckVersionMatch ||
		!strings.Contains(rej.Detail, proto.Version+"-not-x") {
		t.Fatalf("a shifted version: %v", rej)
	}
	if _, rej := check(shifted, request{route: upgrade, auth: bearer, query: "device_id=device-1&version=" + proto.Version + "-not-x"}); rej != nil {
		t.Fatalf("the shifted version itself: %v", rej)
	}
	if _, rej := check(transport.Rules{Auth: auth{}}, request{route: upgrade, auth: bearer, query: wsQuery}); rej != nil {
		t.Fatalf("the default version: %v", rej)
	}
}

func TestRulesInternalKeepsTheCauseOffTheWire(t *testing.T) {
	_, rej := check(transport.Rules{Auth: auth{}}, request{route: bootstrap, auth: bearer, body: `{"device_id":"broken-device"}`})
	if rej == nil || !errors.Is(rej, errStoreDown) || strings.Contains(rej.Detail, errStoreDown.Error()) {
		t.Fatalf("got %v", rej)
	}
	_, rej = check(transport.Rules{}, request{route: bootstrap, auth: bearer})
	if rej == nil || rej.Check != transport.CheckInternal || rej.Err == nil {
		t.Fatalf("rules without an Authenticator: %v", rej)
	}
}

// Write answers with the rejection's status and the shared error body.
func TestRejectionWritesTheSharedErrorBody(t *testing.T) {
	for _, code := range []string{proto.HTTPMissingParams, proto.HTTPMissingDeviceID, proto.HTTPBadJSON, proto.HTTPMissingBearer,
		proto.HTTPUnknownDevice, proto.HTTPBadCredential, proto.HTTPWrongRuntimeType, proto.HTTPMethodNotAllowed,
		proto.HTTPIncompatibleVersion, proto.HTTPInternal} {
		w := httptest.NewRecorder()
		transport.Reject(transport.CheckInternal, code, "why").Write(w)
		var body proto.HTTPError
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s: body %q: %v", code, w.Body, err)
		}
		if w.Code != proto.HTTPStatusFor(code) || body != (proto.HTTPError{Error: code, Detail: "why"}) || w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s %+v", code, w.Code, w.Header().Get("Content-Type"), body)
		}
	}
}

func TestOneDevice(t *testing.T) {
	o := transport.OneDevice{DeviceID: device, Credential: secret, WorkspaceID: "w"}
	if ws, err := o.Authenticate(device, secret); err != nil || ws != "w" {
		t.Errorf("the device: %q %v", ws, err)
	}
	if _, err := o.Authenticate("nope", secret); !errors.Is(err, transport.ErrUnknownDevice) {
		t.Errorf("another device: %v", err)
	}
	if _, err := o.Authenticate(device, secret+"x"); !errors.Is(err, transport.ErrBadCredential) {
		t.Errorf("another credential: %v", err)
	}
	if !o.IsCredential(secret) || o.IsCredential("") || o.IsCredential(device) {
		t.Error("IsCredential")
	}
	if (transport.OneDevice{DeviceID: device}).IsCredential("") {
		t.Error("an empty credential recognises the empty string")
	}
}

func TestBearer(t *testing.T) {
	for _, tc := range []struct {
		header, want string
		ok           bool
	}{
		{"Bearer abc", "abc", true},
		{"Bearer   abc  ", "abc", true},
		{"Bearer ", "", false},
		{"Bearer \t ", "", false},
		{"Bearer", "", false},
		{"bearer abc", "", false},
		{"Basic abc", "", false},
		{"", "", false},
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set("Authorization", tc.header)
		}
		if got, ok := transport.Bearer(h); got != tc.want || ok != tc.ok {
			t.Errorf("%q: %q %v, want %q %v", tc.header, got, ok, tc.want, tc.ok)
		}
	}
}

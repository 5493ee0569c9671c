package transport

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
)

// Explain says in plain words, for the author of the daemon that sent r, why rules refused it:
// every upgrade parameter that is missing (the wire answers one 400 missing_params for all of
// them), the version the daemon presented against the one spoken, the name (never the value) of a
// URL parameter that carries a credential. The same cause reads the same for every scenario, so a
// report can group failures by it.
func (rules Rules) Explain(r *http.Request, rej *Rejection) string {
	why := rules.explain(r, rej)
	// Another check may refuse first (the Bearer before the version): the version a daemon speaks
	// is still named, or fixing the first cause would only reveal the second.
	if q := r.URL.Query(); rej.Check != CheckVersionMatch && q.Has(proto.QueryVersion) && q.Get(proto.QueryVersion) != rules.version() {
		why += fmt.Sprintf("; it also speaks wire version %q, where this Core speaks %s only", q.Get(proto.QueryVersion), rules.version())
	}
	return why
}

func (rules Rules) explain(r *http.Request, rej *Rejection) string {
	presented, hasBearer := Bearer(r.Header)
	inURL, credInURL := rules.credentialParam(r, presented)
	alsoInURL := ""
	if credInURL {
		alsoInURL = fmt.Sprintf("; its credential travels in the URL instead (query parameter %s), where it must never appear", inURL)
	}
	q := r.URL.Query()
	switch rej.Check {
	case CheckDeviceID, CheckVersion, CheckBearer:
		if rej.Code == proto.HTTPMissingParams {
			var missing []string
			if q.Get(proto.QueryDeviceID) == "" {
				missing = append(missing, "the device_id query parameter")
			}
			if !q.Has(proto.QueryVersion) {
				missing = append(missing, "the version query parameter")
			}
			if r.Header.Get("Authorization") == "" {
				missing = append(missing, "the Authorization: Bearer header")
			}
			return "the daemon's WebSocket upgrade lacks " + joinAnd(missing) + alsoInURL
		}
		if rej.Check == CheckDeviceID {
			return "the daemon's " + route(r) + " request has no device_id"
		}
		if r.Header.Get("Authorization") != "" && !hasBearer {
			return "the daemon's Authorization header is not \"Bearer <credential>\"" + alsoInURL
		}
		return "the daemon sends no Authorization: Bearer header" + alsoInURL
	case CheckVersionMatch:
		return fmt.Sprintf("the daemon speaks wire version %q; this Core speaks %s only (the version must match exactly)", q.Get(proto.QueryVersion), rules.version())
	case CheckCredentialInURL:
		if r.Header.Get("Authorization") == "" {
			// The same root cause as a refusal for the missing Bearer: one text whichever check
			// refused first, and both halves of the fix named.
			return "the daemon sends no Authorization: Bearer header" + alsoInURL
		}
		return "the daemon puts a credential in the URL (query parameter " + inURL + "); it must travel only in the Authorization: Bearer header"
	case CheckDevice:
		return fmt.Sprintf("the daemon presented device_id %q, which this Core does not know", rej.DeviceID)
	case CheckCredential:
		return fmt.Sprintf("the daemon's Bearer credential is not the one issued to device %q", rej.DeviceID)
	case CheckMethod:
		return fmt.Sprintf("the daemon sent %s %s; %s", r.Method, route(r), rej.Detail)
	case CheckBody:
		return "the daemon's bootstrap body is not JSON of the form {\"device_id\": \"...\"}"
	}
	return rej.Detail
}

func route(r *http.Request) string {
	p := r.URL.Path
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return "nothing"
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

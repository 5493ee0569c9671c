package fault

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/transport"
)

// readLimit bounds what the relay reads per frame. It is above the protocol's limit so that an
// oversize frame from one peer reaches the other, whose own limit then decides, as it would
// without the relay.
const readLimit = 4 * proto.MaxFrameBytes

// refusal is an armed refuse_reconnect: the next left upgrade attempts are refused.
type refusal struct {
	rule   string
	status int
	code   string
	total  int
	left   int
}

// handshakeHeaders are set by the WebSocket client itself, or are hop-by-hop.
var handshakeHeaders = map[string]bool{
	"Connection": true, "Upgrade": true, "Host": true, "Content-Length": true, "Keep-Alive": true,
	"Proxy-Connection": true, "Te": true, "Trailer": true, "Transfer-Encoding": true,
	"Sec-Websocket-Key": true, "Sec-Websocket-Version": true, "Sec-Websocket-Extensions": true,
	"Sec-Websocket-Protocol": true,
}

// upgrade answers the Runtime's upgrade: an armed refusal first; then the same upgrade to Core
// (same path, query and headers, the credential among them); Core's refusal is handed back as
// Core gave it; only once Core accepted is the Runtime accepted.
func (r *Relay) upgrade(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		transport.WriteError(w, http.StatusServiceUnavailable, proto.HTTPInternal, "fault relay: closed")
		return
	}
	r.attempts++
	attempt := r.attempts
	if len(r.refusals) > 0 {
		f := r.refusals[0]
		f.left--
		if f.left == 0 {
			r.refusals = r.refusals[1:]
		}
		r.record(Event{Conn: attempt, Rule: f.rule, Action: ActRefuseReconnect,
			Detail: fmt.Sprintf("upgrade refused with %d %s (%d of %d)", f.status, f.code, f.total-f.left, f.total)})
		r.mu.Unlock()
		transport.WriteError(w, f.status, f.code, "refused by fault rule "+f.rule)
		return
	}
	coreWS := r.coreWS
	r.wg.Add(1)
	r.mu.Unlock()
	defer r.wg.Done()

	header := http.Header{}
	for k, vs := range req.Header {
		if !handshakeHeaders[http.CanonicalHeaderKey(k)] {
			header[k] = append([]string(nil), vs...)
		}
	}
	var subprotocols []string
	for _, v := range req.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				subprotocols = append(subprotocols, p)
			}
		}
	}
	target := r.wsTarget(req.URL, coreWS)
	core, err := transport.Upgrade(r.ctx, target, &websocket.DialOptions{
		HTTPClient: &http.Client{Transport: r.transport}, HTTPHeader: header, Subprotocols: subprotocols})
	var refused *transport.Refusal
	switch {
	case errors.As(err, &refused):
		// Core refused: hand its answer back as it is.
		r.log.Info("fault relay: Core refused the upgrade", "attempt", attempt, "status", refused.Status)
		refused.Forward(w)
		return
	case err != nil:
		r.log.Warn("fault relay: cannot reach Core's WebSocket", "attempt", attempt, "error", redact(err))
		transport.WriteError(w, http.StatusBadGateway, proto.HTTPInternal, "fault relay: Core's WebSocket did not answer")
		return
	}
	core.SetReadLimit(readLimit)
	var chosen []string
	if p := core.Subprotocol(); p != "" {
		chosen = []string{p}
	}
	rt, err := transport.Accept(w, req, chosen...) // as Core accepts: no Origin check
	if err != nil {
		r.log.Warn("fault relay: accepting the Runtime's upgrade failed", "attempt", attempt, "error", err.Error())
		_ = core.CloseNow()
		return
	}
	rt.SetReadLimit(readLimit)
	s := r.newSession(rt, core)
	if s == nil {
		return
	}
	r.log.Info("fault relay: connection open", "conn", s.n)
	if r.tap != nil {
		r.tap.Open(s.n, req.URL.Query().Get(proto.QueryDeviceID))
	}
	s.run()
	if r.tap != nil {
		r.tap.Close(s.n)
	}
	r.log.Info("fault relay: connection ended", "conn", s.n)
}

// wsTarget is where to dial Core: the ws_url of Core's last bootstrap (its scheme and host) with
// the Runtime's path and query, else Core's base URL as ws(s).
func (r *Relay) wsTarget(in *url.URL, coreWS *url.URL) string {
	u := url.URL{Scheme: "ws", Host: r.upstream.Host, Path: r.upstreamPath(in.Path), RawQuery: in.RawQuery}
	if r.upstream.Scheme == "https" {
		u.Scheme = "wss"
	}
	if coreWS != nil {
		u.Scheme, u.Host, u.Path = coreWS.Scheme, coreWS.Host, in.Path
	}
	return u.String()
}

// redact renders a dial error without the URL's query (which names the device): a URL never
// carries the credential, but logs need not repeat it either.
func redact(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			u.RawQuery = ""
			return fmt.Sprintf("%s %s: %v", ue.Op, u.Redacted(), ue.Err)
		}
	}
	return err.Error()
}

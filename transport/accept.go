package transport

import (
	"net/http"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
)

// Accept completes an upgrade that passed Rules.CheckUpgrade and sets the protocol's read limit.
// There is no Origin check: the daemon is not a browser (protocol-facts.md §1.3). subprotocols
// are offered back to a client that asked for one (a relay mirrors what Core chose).
func Accept(w http.ResponseWriter, r *http.Request, subprotocols ...string) (*websocket.Conn, error) {
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true, Subprotocols: subprotocols})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(proto.MaxFrameBytes)
	return ws, nil
}

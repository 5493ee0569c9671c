package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/execution/envprep"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// The Environment preparation API (README "The reference Core"):
//
//	PUT    /api/v1/devices/{id}/preparation  {"environment_id", "session_id", "operations": [...]} → 200 the preparation
//	GET    /api/v1/devices/{id}/preparation  → {"device_id", "preparation"?, "last"?, "results"}
//	DELETE /api/v1/devices/{id}/preparation  → 204
//
// An operation is a runtime_prepare begin header without the transfer's own members, plus its
// body: {"action": "file", "file": {"path": "/workspace/a.txt"}, "content": base64} (skill and
// plugin: {"skill"|"plugin": {"type": "inline", "name", "description"}, "slot"? (plugin),
// "content"}; initialize: {"initialization": {...}}; finalize: {"sources": {...}}). Core computes
// size_bytes and sha256 and validates every operation with the wire's own validators: a bad one
// is 400 invalid_preparation naming the operation and the member, and nothing is stored. The
// preparation runs on every later connection of the device, before work is admitted there.
// results are the latest connections' results (state running, completed, rejected, failed or
// unknown; operation, transfer_id, outcome, error_code, exit_code, detail), last the newest.

// preparationBodyBytes bounds a PUT: a 50 MiB body in base64, with its headers.
const preparationBodyBytes = 72 << 20

// PreparationView is what GET answers.
type PreparationView struct {
	DeviceID    string                    `json:"device_id"`
	Preparation *store.Preparation        `json:"preparation,omitempty"`
	Last        *store.PreparationResult  `json:"last,omitempty"`
	Results     []store.PreparationResult `json:"results"`
}

// ErrInvalidPreparation marks a preparation the wire's validators refuse.
var ErrInvalidPreparation = envprep.ErrInvalid

// SetPreparation validates and stores a device's Environment preparation (nil removes it). It
// applies from the device's next connection.
func (c *Core) SetPreparation(deviceID string, p *store.Preparation) error {
	if _, err := c.store.Device(deviceID); err != nil {
		return fmt.Errorf("device %s: %w", deviceID, store.ErrUnknownDevice)
	}
	var ops []envprep.Op
	if p != nil {
		// The caller keeps its preparation: the engine's copy is the one the connections read.
		var err error
		if p, err = p.Clone(); err != nil {
			return err
		}
		if ops, err = envprep.Build(p); err != nil {
			return err
		}
	}
	if err := c.store.SetPreparation(deviceID, p); err != nil {
		return err
	}
	c.engine.PrimePreparation(deviceID, p, ops)
	return nil
}

// Preparation returns a device's preparation and its latest results.
func (c *Core) Preparation(deviceID string) (*PreparationView, error) {
	if _, err := c.store.Device(deviceID); err != nil {
		return nil, fmt.Errorf("device %s: %w", deviceID, store.ErrUnknownDevice)
	}
	p, err := c.store.Preparation(deviceID)
	if err != nil {
		return nil, err
	}
	results, err := c.store.PreparationResults(deviceID)
	if err != nil {
		return nil, err
	}
	v := &PreparationView{DeviceID: deviceID, Preparation: p, Results: results}
	if v.Results == nil {
		v.Results = []store.PreparationResult{}
	}
	if n := len(results); n > 0 {
		v.Last = &results[n-1]
	}
	return v, nil
}

func (c *Core) registerPreparationAPI(mux *http.ServeMux) {
	mux.HandleFunc("PUT /api/v1/devices/{id}/preparation", c.apiSetPreparation)
	mux.HandleFunc("GET /api/v1/devices/{id}/preparation", c.apiPreparation)
	mux.HandleFunc("DELETE /api/v1/devices/{id}/preparation", c.apiDeletePreparation)
}

func (c *Core) apiSetPreparation(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, preparationBodyBytes+1))
	if err == nil && len(body) > preparationBodyBytes {
		err = fmt.Errorf("the body must be at most %d bytes", preparationBodyBytes)
	}
	var p store.Preparation
	if err == nil {
		err = json.Unmarshal(body, &p)
	}
	if err != nil {
		replyError(w, http.StatusBadRequest, "bad_json", err.Error())
		return
	}
	c.replyPreparation(w, r.PathValue("id"), c.SetPreparation(r.PathValue("id"), &p), http.StatusOK)
}

func (c *Core) apiDeletePreparation(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := c.SetPreparation(id, nil); err != nil {
		c.replyPreparation(w, id, err, 0)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (c *Core) apiPreparation(w http.ResponseWriter, r *http.Request) {
	c.replyPreparation(w, r.PathValue("id"), nil, http.StatusOK)
}

func (c *Core) replyPreparation(w http.ResponseWriter, id string, err error, status int) {
	var v *PreparationView
	if err == nil {
		v, err = c.Preparation(id)
	}
	switch {
	case errors.Is(err, store.ErrUnknownDevice):
		replyError(w, http.StatusNotFound, "unknown_device", "no device "+id)
	case errors.Is(err, envprep.ErrInvalid):
		replyError(w, http.StatusBadRequest, "invalid_preparation", err.Error())
	case err != nil:
		replyError(w, http.StatusInternalServerError, "internal", err.Error())
	default:
		reply(w, status, v)
	}
}

// prepConn adapts a new gateway Session to what the preparation needs.
type prepConn struct{ *gateway.Session }

func (p prepConn) AwaitTransfer(id string) (execution.Stream, error) {
	w, err := p.Session.AwaitTransfer(id)
	if err != nil {
		return nil, err
	}
	return w, nil
}

package core

import (
	"errors"
	"net/http"
	"strings"

	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// The suspension part of the JSON API (README "The reference Core"):
//
//	POST /api/v1/devices/{id}/suspend  {"key", "environment_id"?} → 202 the quiesce's record
//	POST /api/v1/devices/{id}/resume   {"key", "attempt", "rollback"?} → 202 the resume's record
//	GET  /api/v1/devices/{id}/suspensions → {"suspended", "attempt", "requests"} (oldest first)
//	GET  /api/v1/suspensions/{id}      → one request's record
//
// A suspend sends environment_quiesce for the device's Environment (environment_id, or the one
// its preparation binds) under a new persisted suspend_id; a resume sends environment_resume
// naming the attempt's pair, on a newer connection unless rollback. A record is pending, then
// accepted, refused (error_code) or unknown (suspension_unconfirmed: a reply that is not an
// acknowledgement, or a connection that closed before one). Nothing is resent after a
// reconnect. While an attempt is pending, accepted or unknown and no accepted resume ended it,
// Core admits no work to the device: queued Turns wait. At most two requests are outstanding
// per connection (409 suspension_limit); the key is the caller's idempotency key.

// SuspensionRequestBody is the body of a suspend or a resume.
type SuspensionRequestBody struct {
	Key           string `json:"key"`
	EnvironmentID string `json:"environment_id,omitempty"`
	Attempt       string `json:"attempt,omitempty"`
	Rollback      bool   `json:"rollback,omitempty"`
}

// SuspensionState is a device's suspension requests and whether they fence it.
type SuspensionState struct {
	Suspended bool                `json:"suspended"`
	Attempt   string              `json:"attempt,omitempty"`
	Requests  []*store.Suspension `json:"requests"`
}

// Suspend sends environment_quiesce for a device's Environment (see execution.Engine.Suspend).
func (c *Core) Suspend(req execution.SuspendRequest) (*store.Suspension, error) {
	return c.engine.Suspend(req)
}

// Resume sends environment_resume for a suspension attempt (see execution.Engine.Resume).
func (c *Core) Resume(req execution.ResumeRequest) (*store.Suspension, error) {
	return c.engine.Resume(req)
}

// Suspension returns one suspension request's record.
func (c *Core) Suspension(id string) (*store.Suspension, error) { return c.engine.Suspension(id) }

// Suspensions returns a device's suspension state.
func (c *Core) Suspensions(deviceID string) (SuspensionState, error) {
	reqs, err := c.engine.Suspensions(deviceID)
	if err != nil {
		return SuspensionState{}, err
	}
	s := SuspensionState{Requests: reqs}
	s.Suspended, s.Attempt = c.engine.Suspended(deviceID)
	return s, nil
}

func (c *Core) registerSuspensionAPI(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/v1/devices/{id}/suspend", func(w http.ResponseWriter, r *http.Request) { c.apiSuspension(w, r, false) })
	mux.HandleFunc("POST /api/v1/devices/{id}/resume", func(w http.ResponseWriter, r *http.Request) { c.apiSuspension(w, r, true) })
	mux.HandleFunc("GET /api/v1/devices/{id}/suspensions", func(w http.ResponseWriter, r *http.Request) {
		s, err := c.Suspensions(r.PathValue("id"))
		if err != nil {
			replyError(w, http.StatusInternalServerError, "internal", err.Error())
			return
		}
		reply(w, http.StatusOK, s)
	})
	mux.HandleFunc("GET /api/v1/suspensions/{id}", func(w http.ResponseWriter, r *http.Request) {
		s, err := c.Suspension(r.PathValue("id"))
		if err != nil {
			replyError(w, http.StatusNotFound, "unknown_suspension", err.Error())
			return
		}
		reply(w, http.StatusOK, s)
	})
}

func (c *Core) apiSuspension(w http.ResponseWriter, r *http.Request, resume bool) {
	id := r.PathValue("id")
	var body SuspensionRequestBody
	if !decodeBody(w, r, &body) {
		return
	}
	var rec *store.Suspension
	var err error
	if resume {
		rec, err = c.Resume(execution.ResumeRequest{DeviceID: id, Key: body.Key, Attempt: body.Attempt, Rollback: body.Rollback})
	} else {
		rec, err = c.Suspend(execution.SuspendRequest{DeviceID: id, Key: body.Key, EnvironmentID: body.EnvironmentID})
	}
	switch {
	case errors.Is(err, execution.ErrInvalid):
		replyError(w, http.StatusBadRequest, "invalid_suspension_request", err.Error())
	case errors.Is(err, execution.ErrNoAttempt):
		replyError(w, http.StatusNotFound, "unknown_attempt", err.Error())
	case err != nil:
		replyError(w, http.StatusConflict, SuspensionRefusal(err), strings.TrimSpace(err.Error()))
	default:
		reply(w, http.StatusAccepted, rec)
	}
}

// SuspensionRefusal is the API's code for a refusal of Suspend or Resume ("" for none).
func SuspensionRefusal(err error) string {
	if err == nil {
		return ""
	}
	for _, e := range []struct {
		err  error
		code string
	}{
		{execution.ErrSuspensionLimit, "suspension_limit"},
		{execution.ErrSuspensionConflict, "suspension_conflict"},
		{execution.ErrNotResumable, "not_resumable"},
		{execution.ErrSameConnection, "resume_needs_new_connection"},
		{execution.ErrDeviceOffline, "device_offline"},
		{execution.ErrNoAttempt, "unknown_attempt"},
		{execution.ErrInvalid, "invalid_suspension_request"},
	} {
		if errors.Is(err, e.err) {
			return e.code
		}
	}
	return "internal"
}

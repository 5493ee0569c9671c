package core

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// The JSON API of the reference Core (README "The reference Core"):
//
//	POST /api/v1/devices              {"device_id"?, "workspace_id"?} → 201 {"device_id", "credential"}
//	GET  /api/v1/devices/{id}         → {"device_id", "online", "capabilities"?}
//	POST /api/v1/turns                {"device_id", "configuration", "environment", "input"} → 201 {"turn_id", "run_id", "session_id"}
//	GET  /api/v1/turns/{id}           → the Turn record with its outcome once recorded
//	GET  /api/v1/turns/{id}/journal   → the Turn's journal
//	POST /api/v1/turns/{id}/cancel    → 202
//	POST /api/v1/turns/{id}/input     {"key", "input"} → 202 the input's record {"input_id", "key", "input", "state", "error_code"?, "sends"?}
//	GET  /api/v1/turns/{id}/interactions → the Turn's interactions [{"id", "kind", "request", "state", ...}]
//	POST /api/v1/turns/{id}/interactions/{iid} {"key", "answer"} → 202 the interaction's record
//
// An input's key is the caller's idempotency key: the same key with the same content answers the
// input already recorded; with other content it is 409 input_conflict. The Turn record lists every
// input with its state (pending, sent, written, accepted, failed with error_code, unknown) and
// input_cursor, the number of inputs the Runtime accepted.
//
// An interaction is a permission_request (kind permission, id its request_id), a
// prompt_for_user_choice (user_choice, its ask_id) or a function_call (function, its call_id).
// Its answer is the decision's payload without delivery_id (and a function result's without
// call_id): Core sends it with a fresh delivery_id, one decision at a time per Run, and records
// the ack (state answered → sent → applied, or refused with error_code; unknown when no ack came
// within 15 s or the connection went: never resent; detached when the Runtime withdrew it). The
// key is idempotent as an input's: another answer under it is 409 answer_conflict, any answer to
// an interaction answered under another key or withdrawn is 409 not_pending.
//
// Errors are {"error": code, "detail": text}. A credential appears only in the answer that issues it.

// APIError is the error body of the JSON API.
type APIError struct {
	Error   string   `json:"error"`
	Detail  string   `json:"detail,omitempty"`
	Missing []string `json:"missing,omitempty"`
}

// DeviceRequest registers a device.
type DeviceRequest struct {
	DeviceID    string `json:"device_id,omitempty"`
	WorkspaceID string `json:"workspace_id,omitempty"`
}

// DeviceResponse answers a registration; the credential is shown this once.
type DeviceResponse struct {
	DeviceID   string `json:"device_id"`
	Credential string `json:"credential"`
}

// DeviceStatus describes a device.
type DeviceStatus struct {
	DeviceID     string                  `json:"device_id"`
	Online       bool                    `json:"online"`
	Retired      bool                    `json:"retired,omitempty"`
	Capabilities *proto.HeartbeatPayload `json:"capabilities,omitempty"`
}

// TurnRequest starts a Turn.
type TurnRequest struct {
	DeviceID      string                     `json:"device_id"`
	Configuration proto.PromptRequestPayload `json:"configuration"`
	Environment   string                     `json:"environment"`
	Input         proto.MessageInput         `json:"input"`
}

// InputRequest delivers an active input to a running Turn.
type InputRequest struct {
	Key   string             `json:"key"`
	Input proto.MessageInput `json:"input"`
}

// TurnResponse names the started Turn.
type TurnResponse struct {
	TurnID    string `json:"turn_id"`
	RunID     string `json:"run_id"`
	SessionID string `json:"session_id"`
}

func (c *Core) registerAPI(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/v1/devices", c.apiRegisterDevice)
	mux.HandleFunc("GET /api/v1/devices/{id}", c.apiDevice)
	mux.HandleFunc("POST /api/v1/turns", c.apiStartTurn)
	mux.HandleFunc("GET /api/v1/turns/{id}", c.apiTurn)
	mux.HandleFunc("GET /api/v1/turns/{id}/journal", c.apiJournal)
	mux.HandleFunc("POST /api/v1/turns/{id}/cancel", c.apiCancel)
	mux.HandleFunc("POST /api/v1/turns/{id}/input", c.apiInput)
	mux.HandleFunc("GET /api/v1/turns/{id}/interactions", c.apiInteractions)
	mux.HandleFunc("POST /api/v1/turns/{id}/interactions/{iid}", c.apiAnswer)
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func replyError(w http.ResponseWriter, status int, code, detail string) {
	reply(w, status, APIError{Error: code, Detail: detail})
}

func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, proto.MaxFrameBytes))
	if err == nil {
		err = json.Unmarshal(body, v)
	}
	if err != nil {
		replyError(w, http.StatusBadRequest, "bad_json", err.Error())
		return false
	}
	return true
}

func (c *Core) apiRegisterDevice(w http.ResponseWriter, r *http.Request) {
	var req DeviceRequest
	if r.ContentLength != 0 && !decodeBody(w, r, &req) {
		return
	}
	if req.DeviceID == "" {
		req.DeviceID = execution.NewID()
	}
	cred, err := c.RegisterDevice(req.DeviceID, req.WorkspaceID)
	if errors.Is(err, store.ErrExists) {
		replyError(w, http.StatusConflict, "device_exists", "device "+req.DeviceID+" is already registered")
		return
	}
	if err != nil {
		replyError(w, http.StatusBadRequest, "invalid_device", err.Error())
		return
	}
	c.log.Info("device registered", "device_id", req.DeviceID)
	reply(w, http.StatusCreated, DeviceResponse{DeviceID: req.DeviceID, Credential: cred})
}

func (c *Core) apiDevice(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	d, err := c.store.Device(id)
	if err != nil {
		replyError(w, http.StatusNotFound, "unknown_device", "no device "+id)
		return
	}
	hb, _ := c.Capabilities(id)
	reply(w, http.StatusOK, DeviceStatus{DeviceID: id, Online: c.Online(id), Retired: d.Retired, Capabilities: hb})
}

func (c *Core) apiStartTurn(w http.ResponseWriter, r *http.Request) {
	var req TurnRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Environment == "" {
		req.Environment = store.EnvironmentNone
	}
	t, err := c.StartTurn(execution.StartRequest{DeviceID: req.DeviceID, Configuration: req.Configuration,
		Environment: req.Environment, Input: req.Input})
	var denied *execution.DeniedError
	switch {
	case errors.As(err, &denied):
		reply(w, http.StatusUnprocessableEntity, APIError{Error: "admission_denied", Detail: denied.Decision.String(), Missing: denied.Decision.Missing})
	case errors.Is(err, execution.ErrDeviceOffline):
		replyError(w, http.StatusConflict, "device_offline", err.Error())
	case errors.Is(err, execution.ErrInvalid):
		replyError(w, http.StatusBadRequest, "invalid_turn", err.Error())
	case err != nil:
		replyError(w, http.StatusInternalServerError, "internal", err.Error())
	default:
		reply(w, http.StatusCreated, TurnResponse{TurnID: t.ID, RunID: t.RunID, SessionID: t.SessionID})
	}
}

func (c *Core) apiTurn(w http.ResponseWriter, r *http.Request) {
	t, err := c.Turn(r.PathValue("id"))
	if err != nil {
		replyError(w, http.StatusNotFound, "unknown_turn", "no Turn "+r.PathValue("id"))
		return
	}
	reply(w, http.StatusOK, t)
}

func (c *Core) apiJournal(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := c.Turn(id); err != nil {
		replyError(w, http.StatusNotFound, "unknown_turn", "no Turn "+id)
		return
	}
	evs, err := c.Journal(id)
	if err != nil {
		replyError(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	reply(w, http.StatusOK, evs)
}

func (c *Core) apiCancel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	err := c.CancelTurn(id)
	switch {
	case errors.Is(err, execution.ErrNotFound):
		replyError(w, http.StatusNotFound, "unknown_turn", "no Turn "+id)
	case errors.Is(err, execution.ErrFinished):
		replyError(w, http.StatusConflict, "turn_finished", err.Error())
	case err != nil:
		replyError(w, http.StatusConflict, "turn_not_running", strings.TrimSpace(err.Error()))
	default:
		reply(w, http.StatusAccepted, map[string]string{"turn_id": id, "status": "cancelling"})
	}
}

func (c *Core) apiInput(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var req InputRequest
	if !decodeBody(w, r, &req) {
		return
	}
	in, err := c.DeliverInput(id, req.Key, req.Input)
	switch {
	case errors.Is(err, execution.ErrNotFound):
		replyError(w, http.StatusNotFound, "unknown_turn", "no Turn "+id)
	case errors.Is(err, execution.ErrInvalid):
		replyError(w, http.StatusBadRequest, "invalid_input", err.Error())
	case errors.Is(err, execution.ErrFinished):
		replyError(w, http.StatusConflict, "turn_finished", err.Error())
	case errors.Is(err, execution.ErrInputConflict):
		replyError(w, http.StatusConflict, "input_conflict", err.Error())
	case errors.Is(err, execution.ErrInputLimit):
		replyError(w, http.StatusUnprocessableEntity, "input_limit", err.Error())
	case errors.Is(err, execution.ErrInputUnsupported):
		replyError(w, http.StatusUnprocessableEntity, "input_unsupported", err.Error())
	case err != nil:
		replyError(w, http.StatusConflict, "turn_not_running", strings.TrimSpace(err.Error()))
	default:
		reply(w, http.StatusAccepted, in)
	}
}

// AnswerRequest answers one interaction of a running Turn.
type AnswerRequest struct {
	Key    string          `json:"key"`
	Answer json.RawMessage `json:"answer"`
}

func (c *Core) apiInteractions(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ins, err := c.Interactions(id)
	if err != nil {
		replyError(w, http.StatusNotFound, "unknown_turn", "no Turn "+id)
		return
	}
	if ins == nil {
		ins = []store.Interaction{}
	}
	reply(w, http.StatusOK, ins)
}

func (c *Core) apiAnswer(w http.ResponseWriter, r *http.Request) {
	id, iid := r.PathValue("id"), r.PathValue("iid")
	var req AnswerRequest
	if !decodeBody(w, r, &req) {
		return
	}
	in, err := c.Answer(id, iid, req.Key, req.Answer)
	switch {
	case errors.Is(err, execution.ErrNotFound):
		replyError(w, http.StatusNotFound, "unknown_turn", "no Turn "+id)
	case errors.Is(err, execution.ErrNoInteraction):
		replyError(w, http.StatusNotFound, "unknown_interaction", err.Error())
	case errors.Is(err, execution.ErrInvalid):
		replyError(w, http.StatusBadRequest, "invalid_answer", err.Error())
	case errors.Is(err, execution.ErrFinished):
		replyError(w, http.StatusConflict, "turn_finished", err.Error())
	case errors.Is(err, execution.ErrAnswerConflict):
		replyError(w, http.StatusConflict, "answer_conflict", err.Error())
	case errors.Is(err, execution.ErrNotPending):
		replyError(w, http.StatusConflict, "not_pending", err.Error())
	case errors.Is(err, execution.ErrResultImagesUnsupported):
		replyError(w, http.StatusUnprocessableEntity, "result_images_unsupported", err.Error())
	case err != nil:
		replyError(w, http.StatusConflict, "turn_not_running", strings.TrimSpace(err.Error()))
	default:
		reply(w, http.StatusAccepted, in)
	}
}

package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/wirecheck/wirecheck/proto"
)

// ErrPermanent matches a refusal that needs operator correction: 401, 403 and 426. A Runtime stops
// after exactly one attempt (protocol-facts.md §1.3, §1.4).
var ErrPermanent = errors.New("permanent connection failure")

// ErrIncompatibleVersion matches a 426 incompatible_version refusal.
var ErrIncompatibleVersion = errors.New("incompatible wire version")

// Stage is the request a Core refused.
type Stage string

const (
	StageBootstrap Stage = "bootstrap"
	StageDial      Stage = "dial"
)

// Refusal is a non-2xx answer to bootstrap, or a non-101 answer to the upgrade, as a Runtime
// receives it.
type Refusal struct {
	Stage  Stage
	Status int
	Code   string // the error body's code; "" when the body is not the shared error body
	Detail string
	// Body and ContentType are the answer as it came (its first bytes only: see maxAnswerBytes),
	// for a relay that hands it on unchanged.
	Body        []byte
	ContentType string
}

func (e *Refusal) Error() string {
	return fmt.Sprintf("%s refused: %d %s (%s)", e.Stage, e.Status, e.Code, e.Detail)
}

func (e *Refusal) Is(target error) bool {
	switch target {
	case ErrPermanent:
		return proto.PermanentHTTPStatus(e.Status)
	case ErrIncompatibleVersion:
		return e.Status == http.StatusUpgradeRequired
	}
	return false
}

// Forward writes the refusal to w as it came: status, content type and body.
func (e *Refusal) Forward(w http.ResponseWriter) {
	if e.ContentType != "" {
		w.Header().Set("Content-Type", e.ContentType)
	}
	w.WriteHeader(e.Status)
	_, _ = w.Write(e.Body)
}

// DecodeRefusal reads an answer's error body. Any body is accepted: one that is not the shared
// error body leaves Code and Detail empty, and the status still decides.
func DecodeRefusal(stage Stage, status int, body []byte) *Refusal {
	var e proto.HTTPError
	_ = json.Unmarshal(body, &e)
	return &Refusal{Stage: stage, Status: status, Code: e.Error, Detail: e.Detail, Body: body}
}

package monitor

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"

	"github.com/wirecheck/wirecheck/proto"
)

// The transfer families: runtime_prepare and workspace_write share their steps (begin, chunk,
// commit) and their receipts (ready, received, completed), each step awaiting its own.
const (
	familyPrepare = proto.TypeRuntimePrepareResult
	familyWrite   = proto.TypeWorkspaceWriteResult
)

// transferRules are the rules each family states its steps and receipts in.
type transferRules struct {
	replay     string // Core: a transfer is never replayed, on this connection or a later one
	concurrent string // Core: one transfer at a time per connection
	sequence   string // Core: begin → ready, then each chunk at the bytes confirmed awaits its received, then commit
	duplicate  string // Runtime: a duplicate begin (same id) gets no reply
	receipt    string // Runtime: a receipt's outcome fits its step; offsets and sizes are the transfer's
	applied    string // Runtime: a chunk off the offset closes the transfer; commit applies only the full size
	invalid    string // Runtime: a malformed or invalid frame is rejected (or, for a pending transfer, may go unanswered)
}

var rulesOf = map[string]transferRules{
	familyPrepare: {replay: "RP-16", concurrent: "RP-17", sequence: "RP-14", duplicate: "RP-20", receipt: "RP-12", applied: "RP-22", invalid: "RP-19"},
	familyWrite:   {replay: "WS-25", concurrent: "WS-25", sequence: "WS-16", duplicate: "WS-19", receipt: "WS-17", applied: "WS-21", invalid: "WS-18"},
}

// begin is what a transfer's begin declared.
type begin struct {
	size int64
	sha  string // the body's SHA-256, lowercase hex
	body bool   // bytes follow: a file, skill or plugin (initialize and finalize carry none)
}

func beginOf(p *proto.RuntimePreparePayload) *begin {
	if p.Step != proto.StepBegin {
		return nil
	}
	return &begin{size: p.SizeBytes, sha: p.SHA256, body: p.Action != proto.ActionInitialize && p.Action != proto.ActionFinalize}
}

// transfer is one transfer ID's exchange on a connection.
type transfer struct {
	begin     *begin // nil: never begun on this connection (its steps are refused)
	ready     bool
	confirmed int64     // bytes the Runtime confirmed with received
	digest    hash.Hash // SHA-256 of the bytes confirmed, in order; nil once a gap was confirmed
	steps     []step    // Core's frames awaiting their receipt, oldest first
	dup       bool      // a duplicate begin arrived: a reply beyond the steps answers it
	over      bool      // a terminal receipt ended it
}

type step struct {
	kind     string // begin, chunk, commit, or invalid (a frame proto refused)
	offset   int64
	data     []byte // a chunk's bytes (a copy)
	quiesced bool   // sent after the Environment quiesced
	pending  bool   // an invalid frame that arrived while its transfer was open
}

func (c *conn) transferStep(family, id, kind string, offset int64, data []byte, b *begin) {
	r, k := rulesOf[family], key{family, id}
	t := c.bulk[k]
	if kind == proto.StepBegin {
		c.beginTransfer(family, id, r, t, b)
		return
	}
	if t == nil {
		c.alarm(r.sequence, "a %s for a transfer not begun on this connection", kind)
		t = &transfer{}
		c.bulk[k] = t
	}
	s := step{kind: kind, offset: offset, data: append([]byte(nil), data...)}
	switch {
	case t.over:
		c.alarm(r.replay, "a %s for a transfer whose receipt already ended it: a transfer is never replayed", kind)
	case t.begin == nil:
	case !t.ready:
		c.alarm(r.sequence, "a %s before the begin's ready", kind)
	case pendingChunk(t):
		c.alarm(r.sequence, "a %s before the received of the chunk before it", kind)
	case kind == proto.StepChunk && offset != t.confirmed:
		c.alarm(r.sequence, "a chunk at offset %d, but the Runtime confirmed %d bytes", offset, t.confirmed)
	case kind == proto.StepCommit && t.begin.body && t.confirmed != t.begin.size:
		c.alarm(r.sequence, "commit with %d of the begin's %d bytes confirmed", t.confirmed, t.begin.size)
	}
	t.steps = append(t.steps, s)
}

func (c *conn) beginTransfer(family, id string, r transferRules, t *transfer, b *begin) {
	ids := c.dev.transfers
	if family == familyWrite {
		ids = c.dev.writes
	}
	if n, ok := ids[id]; ok && n != c.n {
		c.alarm(r.replay, "a begin with the transfer ID of connection %d: reconnection replays no transfer (CN-40)", n)
	}
	ids[id] = c.n
	if t != nil && t.begin != nil && !t.over {
		t.dup = true // the Runtime must not answer it
		return
	}
	for k, other := range c.bulk {
		if k.family == family && k.id != id && other.begin != nil && !other.over {
			c.alarm(r.concurrent, "a begin while transfer %s is still open on this connection", k.id)
			break
		}
	}
	if t != nil && t.over {
		c.alarm(r.replay, "a begin with the ID of a transfer that already ended")
	}
	c.bulk[key{family, id}] = &transfer{begin: b, digest: sha256.New(), steps: []step{{kind: proto.StepBegin, quiesced: c.quiet}}}
}

// digestOf is the SHA-256 of a transfer's body as confirmed, or "" if it is not known.
func digestOf(t *transfer) string {
	if t.digest == nil {
		return ""
	}
	return hex.EncodeToString(t.digest.Sum(nil))
}

func pendingChunk(t *transfer) bool {
	for _, s := range t.steps {
		if s.kind == proto.StepChunk {
			return true
		}
	}
	return false
}

// invalidStep records a frame of a transfer that proto refused: the Runtime may answer it
// (invalid_request) or not (a malformed frame for a pending transfer cannot disprove its commit).
func (c *conn) invalidStep(family, id string) {
	k := key{family, id}
	t := c.bulk[k]
	if t == nil {
		t = &transfer{}
		c.bulk[k] = t
	}
	t.steps = append(t.steps, step{kind: "invalid", pending: t.begin != nil && !t.over})
}

// transferReply checks a receipt against the step it answers.
func (c *conn) transferReply(family, id, outcome string, offset, size int64) {
	r, k := rulesOf[family], key{family, id}
	t := c.bulk[k]
	if t == nil {
		c.reply(k) // raises the alarm for a reply nothing asked for
		return
	}
	success := outcome == proto.OutcomeReady || outcome == proto.OutcomeReceived || outcome == proto.OutcomeCompleted
	for len(t.steps) > 1 && t.steps[0].kind == "invalid" && t.steps[0].pending && success {
		t.steps = t.steps[1:] // that malformed frame for a pending transfer went unanswered, as it may
	}
	if len(t.steps) == 0 {
		if t.dup {
			c.alarm(r.duplicate, "a reply to a duplicate begin, which gets none")
		} else {
			c.alarm(r.receipt, "a %s receipt that no step of the transfer asked for", outcome)
		}
		return
	}
	s := t.steps[0]
	t.steps = t.steps[1:]
	want := map[string]string{proto.OutcomeReady: proto.StepBegin, proto.OutcomeReceived: proto.StepChunk, proto.OutcomeCompleted: proto.StepCommit}[outcome]
	if success && s.kind == "invalid" {
		c.alarm(r.invalid, "%s answers a frame proto refuses: it is rejected invalid_request, never taken", outcome)
		return
	}
	if success && s.kind != want {
		c.alarm(r.receipt, "%s answers a %s; this receipt answers a %s", outcome, want, s.kind)
		return
	}
	switch outcome {
	case proto.OutcomeReady:
		t.ready = true
		if s.quiesced {
			c.alarm("SU-06", "ready for a transfer begun after the Environment quiesced: no work is admitted once quiescence is accepted")
		}
	case proto.OutcomeReceived:
		switch {
		case s.offset != t.confirmed:
			c.alarm(r.applied, "received for a chunk at offset %d after %d bytes: such a chunk closes the transfer", s.offset, t.confirmed)
		case offset != s.offset+int64(len(s.data)):
			c.alarm(r.receipt, "received offset %d; the chunk at %d of %d bytes makes %d", offset, s.offset, len(s.data), s.offset+int64(len(s.data)))
		}
		if s.offset != t.confirmed {
			t.digest = nil // an alarm already says the body is not the begin's
		} else if t.digest != nil {
			t.digest.Write(s.data)
		}
		t.confirmed = s.offset + int64(len(s.data))
	case proto.OutcomeCompleted:
		t.over = true
		if b := t.begin; b != nil {
			if b.body && t.confirmed != b.size {
				c.alarm(r.applied, "completed with %d of the begin's %d bytes received: commit applies only the full size", t.confirmed, b.size)
			} else if sum := digestOf(t); b.body && b.sha != "" && sum != "" && sum != b.sha {
				c.alarm(r.applied, "completed a body whose SHA-256 is %s; the begin declared %s: commit applies only a matching body", sum, b.sha)
			} else if size != b.size {
				c.alarm(r.receipt, "completed size_bytes %d; the begin declared %d", size, b.size)
			}
		}
	default:
		t.over = true
	}
}

// export is one workspace export on a connection: the offsets Core asked for, answered in order.
type export struct {
	asked    []int64
	received int64 // bytes the Runtime sent so far
	over     bool
}

func (c *conn) exportStep(id string, p *proto.WorkspaceExportPayload) {
	ex := c.exports[id]
	switch p.Step {
	case proto.ExportBegin:
		for other, e := range c.exports {
			if other != id && !e.over {
				c.alarm("WS-31", "an export begin while export %s is open on this connection", other)
				break
			}
		}
		c.exports[id] = &export{asked: []int64{0}}
	case proto.ExportNext:
		if ex == nil {
			return // unknown export: the Runtime rejects it (WS-29)
		}
		if !ex.over && p.Offset != ex.received {
			c.alarm("WS-28", "next at offset %d; the Runtime has sent %d bytes", p.Offset, ex.received)
		}
		ex.asked = append(ex.asked, p.Offset)
	}
}

func (c *conn) exportReply(id string, p *proto.WorkspaceExportResultPayload) {
	ex := c.exports[id]
	if ex == nil || len(ex.asked) == 0 {
		return // a reply to a cancel, or to a frame proto refused: nothing to hold it to
	}
	want := ex.asked[0]
	ex.asked = ex.asked[1:]
	switch p.Outcome {
	case proto.OutcomeChunk:
		if p.Offset != want {
			c.alarm("WS-28", "a chunk at offset %d answers a request for offset %d", p.Offset, want)
		}
		ex.received = p.Offset + int64(len(p.Data))
	case proto.OutcomeCompleted:
		ex.over = true
		if p.Offset != ex.received {
			c.alarm("WS-28", "completed at offset %d after %d bytes sent", p.Offset, ex.received)
		}
	default:
		ex.over = true
	}
}

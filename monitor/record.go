package monitor

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wirecheck/wirecheck/proto"
)

// Captured is one frame of a watched conversation, as a capture file holds it (JSON Lines).
type Captured struct {
	Conn  int             `json:"conn"`
	From  proto.Peer      `json:"from"`
	Frame json.RawMessage `json:"frame,omitempty"`
	// Advance, instead of a frame, is a move of the player's clock (a journal's clock record, in
	// the scenario language's duration: 1s, 5m); Record makes it an advance step.
	Advance string `json:"advance,omitempty"`
}

// Record turns the frames of one watched connection into a scenario that plays the conversation
// again against a Runtime (`wirecheck run --catalog DIR`): Core's frames become core steps, the
// Runtime's become runtime steps it must send again, heartbeats are left to the player. Every value
// a peer chose (envelope ids, handles, executors, expiries, session, run, delivery and input IDs)
// becomes a placeholder, the same one wherever the value appears, so the replay correlates as the
// original did without repeating its values. The rules it names are those stating the shapes of
// the frames the Runtime must send.
func Record(id, title string, frames []Captured) ([]byte, error) {
	return RecordWith(id, title, frames, RecordOptions{})
}

// RecordOptions change what Record makes a placeholder.
type RecordOptions struct {
	// Literal keeps the values this side chose as they were (Core, for a replay that sends the
	// recorded frames themselves); the other side's choices stay placeholders.
	Literal proto.Peer
	// Unordered makes each run of the other side's consecutive frames that carries more than one
	// envelope id an any_order group: frames of different streams race (a Run's output and its
	// admission's statuses), and the order one recording caught is not behaviour a replay may
	// demand. A run of one id keeps its order.
	Unordered bool
}

// RecordWith is Record with options.
func RecordWith(id, title string, frames []Captured, opts RecordOptions) ([]byte, error) {
	r := recording{names: map[string]string{}, used: map[string]bool{}, literal: map[string]bool{}}
	type decoded struct {
		from    proto.Peer
		typ, id string
		payload any
		advance string
	}
	var conv []decoded
	for i, f := range frames {
		if f.Advance != "" {
			conv = append(conv, decoded{advance: f.Advance})
			continue
		}
		var env struct {
			Type    string          `json:"type"`
			ID      string          `json:"id"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(f.Frame, &env); err != nil {
			return nil, fmt.Errorf("frame %d: %w", i+1, err)
		}
		if env.Type == proto.TypeHeartbeat {
			continue
		}
		d := decoded{from: f.From, typ: env.Type, id: env.ID}
		if len(env.Payload) > 0 {
			dec := json.NewDecoder(bytes.NewReader(env.Payload))
			dec.UseNumber()
			if err := dec.Decode(&d.payload); err != nil {
				return nil, fmt.Errorf("frame %d (%s) payload: %w", i+1, env.Type, err)
			}
		}
		// Name every chosen value first, in order of appearance, so that a string holding one
		// (agents-api-<session>) is rewritten wherever it comes. A value the literal side chose
		// first is never named.
		r.keep = opts.Literal != "" && d.from == opts.Literal
		if d.id != "" {
			r.placeholder(idName(d.typ), d.id)
		}
		r.collect("", d.payload)
		r.keep = false
		conv = append(conv, d)
	}
	var steps []any
	rules := map[string]bool{}
	var group []any // the other side's frames since the last step of this side (Unordered)
	ids := map[string]bool{}
	flush := func() {
		switch {
		case len(ids) > 1:
			steps = append(steps, yamlMap{{"any_order", group}})
		default:
			steps = append(steps, group...)
		}
		group, ids = nil, map[string]bool{}
	}
	for _, d := range conv {
		if d.advance != "" {
			flush()
			steps = append(steps, yamlMap{{"advance", d.advance}})
			continue
		}
		frame := yamlMap{{"type", d.typ}}
		if d.id != "" {
			frame = append(frame, yamlEntry{"id", r.placeholder(idName(d.typ), d.id)})
		}
		if d.payload != nil {
			frame = append(frame, yamlEntry{"payload", r.template("", d.payload)})
		}
		side := "core"
		if d.from == proto.Runtime {
			side = "runtime"
			rules[shapeRule(d.typ, nil)] = true
		}
		if opts.Unordered && opts.Literal != "" && d.from != opts.Literal {
			group = append(group, yamlMap{{side, frame}})
			ids[d.id] = true
			continue
		}
		flush()
		steps = append(steps, yamlMap{{side, frame}})
	}
	flush()
	if len(steps) == 0 {
		return nil, fmt.Errorf("the conversation holds no frame but heartbeats")
	}
	ruleIDs := make([]string, 0, len(rules))
	for rule := range rules {
		ruleIDs = append(ruleIDs, rule)
	}
	slices.Sort(ruleIDs)
	doc := yamlMap{{"id", id}, {"title", title}, {"rules", flow(ruleIDs)}, {"tests", "runtime"}, {"steps", steps}}
	var b bytes.Buffer
	b.WriteString("# Recorded by wirecheck record from a watched conversation: values a peer chose are placeholders.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc.node()); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// chosen are the payload members whose values a peer chooses: the replay must not repeat them.
var chosen = map[string]string{
	"handle": "handle", "executor_id": "executor", "expires_at": "expires_at", "session_id": "session",
	"run_id": "run", "delivery_id": "delivery", "input_id": "input", "call_id": "call", "request_id": "request",
	"ask_id": "ask", "suspend_id": "suspend", "environment_id": "environment", "agent_session_id": "native_session",
	"ts": "ts", "item_id": "item",
}

// idName names the placeholder of a type's envelope id.
func idName(typ string) string {
	switch typ {
	case proto.TypeExecutionPrepare, proto.TypeExecutionStart, proto.TypeExecutionRelease, proto.TypePreparationStatus:
		return "prepare"
	case proto.TypeRuntimePrepare, proto.TypeRuntimePrepareResult:
		return "transfer"
	case proto.TypeWorkspaceRead, proto.TypeWorkspaceReadResult:
		return "read"
	case proto.TypeWorkspaceWrite, proto.TypeWorkspaceWriteResult:
		return "write"
	case proto.TypeWorkspaceExport, proto.TypeWorkspaceExportResult:
		return "export"
	case proto.TypeEnvironmentQuiesce, proto.TypeEnvironmentQuiesced, proto.TypeEnvironmentResume, proto.TypeEnvironmentResumed:
		return "suspension"
	case proto.TypePermissionDecision, proto.TypePromptForUserChoiceDecision, proto.TypePermissionCancel:
		return "interaction"
	}
	return "run"
}

// recording maps each chosen value to its placeholder.
type recording struct {
	names   map[string]string // value → placeholder name
	used    map[string]bool
	literal map[string]bool // values the literal side chose: kept as they are
	keep    bool            // the frame being collected is the literal side's
}

func (r *recording) placeholder(name, value string) string {
	if n, ok := r.names[value]; ok {
		return "${" + n + "}"
	}
	if r.keep {
		r.literal[value] = true
	}
	if r.literal[value] {
		return value
	}
	n := name
	for i := 2; r.used[n]; i++ {
		n = fmt.Sprintf("%s%d", name, i)
	}
	r.names[value], r.used[n] = n, true
	return "${" + n + "}"
}

// collect names the chosen values of a payload: the members peers choose.
func (r *recording) collect(key string, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		for _, k := range keys {
			r.collect(k, v[k])
		}
	case []any:
		for _, e := range v {
			r.collect(key, e)
		}
	case json.Number, string:
		s := fmt.Sprint(v)
		if name, ok := chosen[key]; ok && s != "" && !strings.Contains(s, "${") {
			r.placeholder(name, s)
		}
	}
}

// template rewrites a payload: chosen values become their placeholders, wherever they appear;
// numbers keep their JSON type.
func (r *recording) template(key string, v any) any {
	switch v := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		m := yamlMap{}
		for _, k := range keys {
			m = append(m, yamlEntry{k, r.template(k, v[k])})
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = r.template(key, e)
		}
		return out
	case json.Number:
		if n, ok := r.named(key, v.String()); ok {
			return "${" + n + "}"
		}
		if n, err := v.Int64(); err == nil {
			return n
		}
		f, _ := v.Float64()
		return f
	case string:
		if n, ok := r.named(key, v); ok {
			return "${" + n + "}"
		}
		return r.embedded(v)
	}
	return v
}

// named returns the placeholder of a value: always in a chosen member, elsewhere only for a value
// long enough not to match by chance (a revision 1 is not an input ID "1").
func (r *recording) named(key, v string) (string, bool) {
	n, ok := r.names[v]
	if _, isChosen := chosen[key]; !ok || v == "" || (!isChosen && len(v) < 6) {
		return "", false
	}
	return n, true
}

// embedded replaces the chosen values a string holds inside it (agents-api-<session>), the
// longest first; values shorter than 6 bytes are left alone, as they could occur by chance.
func (r *recording) embedded(s string) string {
	values := make([]string, 0, len(r.names))
	for v := range r.names {
		if len(v) >= 6 && strings.Contains(s, v) {
			values = append(values, v)
		}
	}
	slices.SortFunc(values, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	for _, v := range values {
		s = strings.ReplaceAll(s, v, "${"+r.names[v]+"}")
	}
	return s
}

// yamlMap is a mapping that keeps its order.
type (
	yamlMap   []yamlEntry
	yamlEntry struct {
		key   string
		value any
	}
	flow []string // a sequence written on one line
)

func (m yamlMap) node() *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range m {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: e.key}, toNode(e.value))
	}
	return n
}

func toNode(v any) *yaml.Node {
	switch v := v.(type) {
	case yamlMap:
		return v.node()
	case flow:
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, s := range v {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: s})
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range v {
			n.Content = append(n.Content, toNode(e))
		}
		return n
	}
	var n yaml.Node
	_ = n.Encode(v) // scalars: strings are quoted where YAML would read them as something else
	return &n
}

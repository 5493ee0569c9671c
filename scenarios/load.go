package scenarios

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wirecheck/wirecheck/internal/yamlstrict"
	"github.com/wirecheck/wirecheck/proto"
)

// LoadError is one problem in a scenario file, with its position (line 0: the whole file).
type LoadError struct {
	Pos Pos
	Msg string
	// More, on the last error of a capped list, counts the errors left out; it has no position.
	More int
}

func (e *LoadError) Error() string {
	switch {
	case e.Pos == Pos{}:
		return e.Msg
	case e.Pos.Line == 0:
		return e.Pos.File + ": " + e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// LoadErrors collects every problem found; Error lists them one per line.
type LoadErrors []*LoadError

func (es LoadErrors) Error() string { return yamlstrict.Lines(es) }

var (
	idRE     = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*(/[a-z0-9][a-z0-9_-]*)*$`)
	ruleIDRE = regexp.MustCompile(`^[A-Z]{2}-[0-9]{2,3}$`)
)

// scenarioLang is how the walker words what it refuses in scenario files.
var scenarioLang = yamlstrict.Lang{Files: "scenarios", Reuse: "use include or vars", DurationExamples: "50ms or 5m"}

// Parse reads every scenario (YAML document) of one file. It reports every error it finds, not
// only the first (up to MaxErrors); includes are resolved later by the catalog. A file over
// MaxFileBytes is refused before parsing.
func Parse(file string, data []byte) ([]*Scenario, error) {
	scs, errs := parse(file, data)
	if len(errs) > 0 {
		return scs, capped(errs)
	}
	return scs, nil
}

func parse(file string, data []byte) ([]*Scenario, LoadErrors) {
	if len(data) > MaxFileBytes {
		return nil, LoadErrors{oversize(file, int64(len(data)))}
	}
	p := newParser(file)
	var out []*Scenario
	for doc := range p.Documents(data) {
		if doc.Refused {
			continue
		}
		if isTable(doc.Root) {
			out = append(out, p.table(doc.Root)...)
			continue
		}
		if sc := p.scenario(doc.Root); sc != nil {
			out = append(out, sc)
		}
	}
	errs := make(LoadErrors, len(p.Errs))
	for i, e := range p.Errs {
		errs[i] = &LoadError{Pos: Pos{File: e.File, Line: e.Line}, Msg: e.Msg}
	}
	return out, errs
}

// parser reads scenarios with the strict walker, which holds the file and its errors.
type parser struct {
	*yamlstrict.Walker
	values yamlstrict.Values
	vars   map[string]Value // the current scenario's own vars, for checking its frames
	// expanded counts the YAML nodes the file's repeats expanded to (MaxRepeatNodes).
	expanded int
}

func newParser(file string) *parser {
	p := &parser{Walker: yamlstrict.New(file, scenarioLang)}
	p.values = yamlstrict.Values{Number: func(lit string) any { return json.Number(lit) }, Mapping: p.special}
	return p
}

func (p *parser) pos(n *yaml.Node) Pos { return Pos{File: p.File, Line: n.Line} }

// fields is the walker's Fields without the key nodes, which scenarios do not need.
func (p *parser) fields(n *yaml.Node, what string, allowed ...string) map[string]*yaml.Node {
	vals, _ := p.Fields(n, what, allowed...)
	return vals
}

// options is fields for options that may be left out: `settle:` or `settle: {}`.
func (p *parser) options(n *yaml.Node, what string, allowed ...string) map[string]*yaml.Node {
	vals, _ := p.Options(n, what, allowed...)
	return vals
}

func (p *parser) scenario(n *yaml.Node) *Scenario {
	f := p.fields(n, "scenario", "id", "title", "spec", "rules", "labels", "requires", "excludes", "unavailable_kinds", "tests", "heartbeat", "handshake", "bootstrap_answer", "vars", "include", "steps")
	if f == nil {
		return nil
	}
	sc := &Scenario{Pos: p.pos(n), Tests: SideBoth, Heartbeat: HeartbeatAuto}
	if f["id"] == nil {
		p.Errorf(n.Line, "scenario: id is required")
	} else if sc.ID = p.String(f["id"], "id"); !idRE.MatchString(sc.ID) {
		p.Errorf(f["id"].Line, "id %q must be lowercase segments separated by / (e.g. execution/cancel-waits)", sc.ID)
	}
	if f["title"] == nil {
		p.Errorf(n.Line, "scenario %s: title is required", sc.ID)
	}
	sc.Title = p.String(f["title"], "title")
	sc.Spec = p.Strings(f["spec"], "spec")
	sc.Rules = p.Strings(f["rules"], "rules")
	for i, r := range sc.Rules {
		if r != RuleOf(r) {
			if _, ok := ClauseByID(r); !ok {
				p.Errorf(f["rules"].Content[i].Line, "rules: %q is not a clause of scenarios/rules/clauses (%s has %d)", r, RuleOf(r), len(ClausesOf(RuleOf(r))))
			}
		} else if _, ok := RuleByID(r); !ok {
			p.Errorf(f["rules"].Content[i].Line, "rules: %q is not a rule of scenarios/rules/rules.tsv", r)
		}
		if slices.Contains(sc.Rules[:i], r) {
			p.Errorf(f["rules"].Content[i].Line, "rules: %s is named twice", r)
		} else if slices.Contains(sc.Rules[:i], RuleOf(r)) || (r == RuleOf(r) && slices.ContainsFunc(sc.Rules[:i], func(o string) bool { return RuleOf(o) == r })) {
			p.Errorf(f["rules"].Content[i].Line, "rules: %s and a clause of it are both named: name the clauses the scenario checks", RuleOf(r))
		}
	}
	sc.Labels = p.Strings(f["labels"], "labels")
	sc.Requires = p.Strings(f["requires"], "requires")
	for i, r := range sc.Requires {
		if !slices.Contains(proto.CapabilityNames(), r) {
			p.Errorf(f["requires"].Content[i].Line, "requires: %q is not a capability", r)
		}
	}
	sc.Excludes = p.Strings(f["excludes"], "excludes")
	for i, r := range sc.Excludes {
		if !slices.Contains(proto.CapabilityNames(), r) {
			p.Errorf(f["excludes"].Content[i].Line, "excludes: %q is not a capability", r)
		}
	}
	sc.UnavailableKinds = p.Strings(f["unavailable_kinds"], "unavailable_kinds")
	for i, k := range sc.UnavailableKinds {
		line := f["unavailable_kinds"].Content[i].Line
		switch {
		case strings.TrimSpace(k) == "":
			p.Errorf(line, "unavailable_kinds: a kind must not be blank")
		case k == "contract":
			p.Errorf(line, "unavailable_kinds: %q is the kind every scenario runs on; name another", k)
		case slices.Contains(sc.UnavailableKinds[:i], k):
			p.Errorf(line, "unavailable_kinds: %q is named twice", k)
		}
	}
	if v := f["vars"]; v != nil {
		if v.Kind != yaml.MappingNode {
			p.Errorf(v.Line, "vars must be a mapping of name to value")
		} else {
			sc.ownVars = map[string]Value{}
			for k, val := range p.Members(v, "vars") {
				if !varNameRE.MatchString(k.Value) {
					p.Errorf(k.Line, "var %q must be lowercase letters, digits and _", k.Value)
				}
				p.checkPlaceholders(val)
				sc.ownVars[k.Value] = p.value(val, "vars."+k.Value)
			}
		}
	}
	p.vars = sc.ownVars
	for i, l := range sc.Labels {
		if !labelRE.MatchString(l) {
			p.Errorf(f["labels"].Content[i].Line, "label %q must be lowercase letters, digits, - and _", l)
		}
	}
	if v := f["tests"]; v != nil {
		switch s := Side(p.String(v, "tests")); s {
		case SideBoth, SideCore, SideRuntime:
			sc.Tests = s
		default:
			p.Errorf(v.Line, "tests must be both, core or runtime, got %q", s)
		}
	}
	if v := f["heartbeat"]; v != nil {
		switch s := p.String(v, "heartbeat"); s {
		case HeartbeatAuto, HeartbeatManual:
			sc.Heartbeat = s
		default:
			p.Errorf(v.Line, "heartbeat must be auto or manual, got %q", s)
		}
	}
	if v := f["handshake"]; v != nil {
		sc.Handshake = p.handshake(v)
		if sc.Handshake != nil && len(sc.Handshake.UpgradeWithout) > 0 && sc.Tests != SideCore {
			p.Errorf(v.Line, "handshake.upgrade_without tests a Core (a Runtime under test always sends them): the scenario needs tests: core")
		}
		if sc.Handshake != nil && sc.Handshake.Bootstrap != nil && sc.Tests != SideCore {
			p.Errorf(v.Line, "handshake.bootstrap tests a Core (no Runtime under test can be made to send it): the scenario needs tests: core")
		}
		if sc.Handshake != nil && sc.Handshake.Expect != nil && sc.Handshake.Expect.AnyStatus && sc.Tests != SideCore {
			p.Errorf(v.Line, "handshake.expect.status any judges a Core's refusal; a scripted Core must answer a definite status: the scenario needs tests: core")
		}
	}
	if v := f["bootstrap_answer"]; v != nil {
		sc.BootstrapAnswer = p.bootstrapAnswer(v)
		if sc.Tests != SideRuntime {
			p.Errorf(v.Line, "bootstrap_answer tests a Runtime (no Core under test can be made to answer otherwise): the scenario needs tests: runtime")
		}
	}
	if v := f["unavailable_kinds"]; v != nil && sc.Tests != SideRuntime {
		p.Errorf(v.Line, "unavailable_kinds says what a Runtime under test must advertise: the scenario needs tests: runtime")
	}
	sc.Include = p.Strings(f["include"], "include")
	if v := f["steps"]; v != nil {
		if v.Kind != yaml.SequenceNode {
			p.Errorf(v.Line, "steps must be a list")
		} else {
			for _, s := range v.Content {
				if isRepeat(s) {
					sc.own = append(sc.own, p.repeatSteps(s)...)
					continue
				}
				if st := p.step(s, false); st != nil {
					sc.own = append(sc.own, st)
				}
			}
		}
	}
	p.checkStalledReads(sc)
	p.checkPadded(sc)
	p.checkRestarts(sc)
	p.checkBodyBytes(sc)
	if len(sc.own) == 0 && len(sc.Include) == 0 && (sc.Handshake == nil || sc.Handshake.Expect == nil) {
		p.Errorf(n.Line, "scenario %s has no steps", sc.ID)
	}
	return sc
}

// checkPadded refuses pad_payload_to on a frame a peer under test may send: only a scripted writer
// pads, so a core frame needs tests: runtime and a runtime frame tests: core.
func (p *parser) checkPadded(sc *Scenario) {
	for _, st := range sc.own {
		for _, fs := range st.Frames() {
			if fs.Frame.PadPayloadTo == 0 {
				continue
			}
			if want := SideRuntime; fs.From == proto.Core && sc.Tests != want {
				p.Errorf(fs.Pos.Line, "pad_payload_to shapes the bytes a scripted core writes, which a Core under test does not: the scenario needs tests: %s", want)
			} else if want := SideCore; fs.From == proto.Runtime && sc.Tests != want {
				p.Errorf(fs.Pos.Line, "pad_payload_to shapes the bytes a scripted runtime writes, which a Runtime under test does not: the scenario needs tests: %s", want)
			}
		}
	}
}

// checkBodyBytes keeps body_bytes to what it means: the body of a runtime_prepare begin a Core
// under test is configured with (tests: core), made at play time, so no chunk step of that
// transfer (its id as written) follows to spell it.
func (p *parser) checkBodyBytes(sc *Scenario) {
	for i, st := range sc.own {
		for _, fs := range st.Frames() {
			ft := fs.Frame
			if ft.BodyBytes == 0 {
				continue
			}
			if pl, _ := ft.Payload.(map[string]Value); fs.From != proto.Core || ft.Type != proto.TypeRuntimePrepare || pl["step"] != proto.StepBegin {
				p.Errorf(fs.Pos.Line, "body_bytes is the body of an operation Core prepares: only on a core runtime_prepare begin")
				continue
			}
			if sc.Tests != SideCore {
				p.Errorf(fs.Pos.Line, "body_bytes configures the body a Core under test prepares (a scripted core sends only the frames written): the scenario needs tests: core")
			}
			for _, later := range sc.own[i+1:] {
				for _, lf := range later.Frames() {
					if pl, _ := lf.Frame.Payload.(map[string]Value); lf.From == proto.Core && lf.Frame.Type == proto.TypeRuntimePrepare &&
						pl["step"] == proto.StepChunk && lf.Frame.ID == ft.ID {
						p.Errorf(lf.Pos.Line, "a chunk of a transfer whose begin has body_bytes: that body is made at play time, not spelled by chunks")
					}
				}
			}
		}
	}
}

// checkRestarts refuses a restart step outside a scenario that tests: core: only a Core under test
// is restarted (through its driver), and a Runtime under test would see no more of it than a
// transport's end, which disconnect makes.
func (p *parser) checkRestarts(sc *Scenario) {
	for _, st := range sc.own {
		if st.Kind == StepRestart && sc.Tests != SideCore {
			p.Errorf(st.Pos.Line, "restart restarts a Core under test (a Runtime under test sees only its transport end, which disconnect makes): the scenario needs tests: core")
		}
	}
}

// maxBodyBytes bounds a body made at play time (body_bytes): past the 50 MiB transfer bound, with
// room for an over-limit case.
const maxBodyBytes = 64 << 20

var (
	httpMethodRE = regexp.MustCompile(`^[A-Z]+$`)
	labelRE      = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	varNameRE    = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

func (p *parser) bootstrapAnswer(n *yaml.Node) *BootstrapAnswer {
	f := p.fields(n, "bootstrap_answer", "heartbeat_seconds", "ws_url_query", "unusable", "stalled_upgrades")
	if f == nil {
		return nil
	}
	a := &BootstrapAnswer{WSURLQuery: p.String(f["ws_url_query"], "bootstrap_answer.ws_url_query")}
	if v := f["unusable"]; v != nil {
		if v.Kind != yaml.SequenceNode {
			p.Errorf(v.Line, "bootstrap_answer.unusable must be a list")
		} else {
			for _, e := range v.Content {
				a.Unusable = append(a.Unusable, p.unusableAnswer(e))
			}
		}
	}
	if v := f["stalled_upgrades"]; v != nil {
		if s, ok := yamlstrict.Int(v); ok && s >= 0 {
			a.StalledUpgrades = s
		} else {
			p.Errorf(v.Line, "bootstrap_answer.stalled_upgrades must be a count (0 or more)")
		}
	}
	if v := f["heartbeat_seconds"]; v != nil {
		if s, ok := yamlstrict.Int(v); ok {
			a.HeartbeatSeconds = &s
		} else {
			p.Errorf(v.Line, "bootstrap_answer.heartbeat_seconds must be an integer")
		}
	}
	return a
}

func (p *parser) unusableAnswer(n *yaml.Node) UnusableAnswer {
	var u UnusableAnswer
	f := p.fields(n, "bootstrap_answer.unusable", "status", "device_id", "oversize")
	if f == nil {
		return u
	}
	if v := f["status"]; v != nil {
		st, ok := yamlstrict.Int(v)
		if !ok || st < 200 || st > 599 {
			p.Errorf(v.Line, "bootstrap_answer.unusable.status must be an HTTP status (200-599)")
		}
		u.Status = st
	}
	if v := f["device_id"]; v != nil {
		s := p.String(v, "bootstrap_answer.unusable.device_id")
		u.DeviceID = &s
	}
	if v := f["oversize"]; v != nil {
		u.Oversize = p.Bool(v, "bootstrap_answer.unusable.oversize")
	}
	if (u.Status == 0 || u.Status/100 == 2) && u.DeviceID == nil && !u.Oversize {
		p.Errorf(n.Line, "bootstrap_answer.unusable: the answer is usable (give a non-2xx status, an empty device_id or oversize)")
	}
	if u.DeviceID != nil && *u.DeviceID != "" {
		p.Errorf(n.Line, "bootstrap_answer.unusable.device_id: only an empty device_id makes an answer unusable")
	}
	return u
}

func (p *parser) handshake(n *yaml.Node) *Handshake {
	f := p.fields(n, "handshake", "device_id", "credential", "version", "credential_in_query", "upgrade_without", "bootstrap", "expect")
	if f == nil {
		return nil
	}
	h := &Handshake{}
	opt := func(k string) *string {
		if f[k] == nil {
			return nil
		}
		s := p.String(f[k], k)
		return &s
	}
	h.DeviceID, h.Credential, h.Version = opt("device_id"), opt("credential"), opt("version")
	if v := f["credential_in_query"]; v != nil {
		h.CredentialInQuery = p.Bool(v, "handshake.credential_in_query")
	}
	h.UpgradeWithout = p.Strings(f["upgrade_without"], "handshake.upgrade_without")
	for i, w := range h.UpgradeWithout {
		if !slices.Contains(UpgradeParams, w) {
			p.Errorf(f["upgrade_without"].Content[i].Line, "handshake.upgrade_without: %q is not one of %s", w, strings.Join(UpgradeParams, ", "))
		}
	}
	if v := f["bootstrap"]; v != nil {
		if b := p.fields(v, "handshake.bootstrap", "method", "body"); b != nil {
			h.Bootstrap = &BootstrapOverride{Method: http.MethodPost}
			if m := b["method"]; m != nil {
				h.Bootstrap.Method = p.String(m, "handshake.bootstrap.method")
				if !httpMethodRE.MatchString(h.Bootstrap.Method) {
					p.Errorf(m.Line, "handshake.bootstrap.method must be an HTTP method in capitals, got %q", h.Bootstrap.Method)
				}
			}
			if body := b["body"]; body != nil {
				s := p.String(body, "handshake.bootstrap.body")
				h.Bootstrap.Body = &s
			}
		}
		if f["expect"] == nil {
			p.Errorf(v.Line, "handshake.bootstrap needs expect: a malformed bootstrap is refused")
		}
	}
	if f["upgrade_without"] != nil && f["expect"] == nil {
		p.Errorf(f["upgrade_without"].Line, "handshake.upgrade_without needs expect: an upgrade without them is refused")
	}
	if v := f["expect"]; v != nil {
		e := p.fields(v, "handshake.expect", "status", "error", "at")
		if e != nil {
			h.Expect = &HTTPExpect{Error: p.String(e["error"], "error"), At: p.String(e["at"], "at")}
			if at := h.Expect.At; at != "" && at != ExpectAtBootstrap && at != ExpectAtUpgrade {
				p.Errorf(e["at"].Line, "handshake.expect.at must be bootstrap or upgrade, got %q", at)
			}
			if h.Expect.At == ExpectAtUpgrade && h.Bootstrap != nil {
				p.Errorf(e["at"].Line, "handshake.expect.at: a malformed bootstrap is refused at the bootstrap")
			}
			if h.Expect.At == ExpectAtBootstrap && len(h.UpgradeWithout) > 0 {
				p.Errorf(e["at"].Line, "handshake.expect.at: with upgrade_without the bootstrap is valid; the upgrade is refused")
			}
			if e["status"] == nil {
				p.Errorf(v.Line, "handshake.expect.status is required")
			} else if s := e["status"]; s.Kind == yaml.ScalarNode && s.Tag == "!!str" && s.Value == "any" {
				h.Expect.AnyStatus = true
				if h.Expect.Error != "" {
					p.Errorf(e["error"].Line, "handshake.expect: status any accepts every code; name no error")
				}
			} else if st, ok := yamlstrict.Int(e["status"]); !ok {
				p.Errorf(e["status"].Line, "handshake.expect.status must be an HTTP status, or any (a refusal whose answer the spec does not name)")
			} else {
				h.Expect.Status = st
			}
			if !h.Expect.AnyStatus && h.Expect.Error != "" && proto.HTTPStatusFor(h.Expect.Error) != h.Expect.Status {
				p.Errorf(v.Line, "handshake.expect: error %q does not go with status %d (facts §1.2)", h.Expect.Error, h.Expect.Status)
			}
		}
	}
	return h
}

var stepKinds = []string{"core", "runtime", "silence", "settle", "disconnect", "reconnect", "advance", "any_order", "check", "include", "fault", "stop_reading", "resume_reading", "await_stall", "export_pull", "restart", "repeat", "bound"}

func (p *parser) step(n *yaml.Node, inGroup bool) *Step {
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		p.Errorf(n.Line, "a step is a mapping with exactly one key, the step kind (%s)", strings.Join(stepKinds, ", "))
		return nil
	}
	k, v := n.Content[0], n.Content[1]
	st := &Step{Kind: StepKind(k.Value), Pos: p.pos(k)}
	if inGroup && st.Kind != StepCore && st.Kind != StepRuntime {
		p.Errorf(k.Line, "any_order holds only core or runtime frame steps, not %q", k.Value)
		return nil
	}
	switch st.Kind {
	case StepCore, StepRuntime:
		st.From = proto.Peer(st.Kind)
		st.Frame = p.frame(v, st.From)
		if st.Frame == nil {
			return nil
		}
		if inGroup && st.Frame.Optional {
			p.Errorf(k.Line, "an any_order group holds the frames that must come: optional goes on a frame step of its own")
		}
	case StepSilence:
		st.Window = DefaultSilenceWindow
		if v.Kind == yaml.ScalarNode {
			st.From = p.peer(v, "silence")
		} else if f := p.fields(v, "silence", "from", "window", "allow"); f != nil {
			if f["from"] == nil {
				p.Errorf(v.Line, "silence.from: a peer (core or runtime) is required")
			} else {
				st.From = p.peer(f["from"], "silence.from")
			}
			if f["window"] != nil {
				st.Window = p.Duration(f["window"], "silence.window")
			}
			if a := f["allow"]; a != nil {
				st.Allow = p.allowed(a, st.From)
			}
		}
	case StepSettle:
		st.From, st.Window = proto.Runtime, DefaultSilenceWindow
		if f := p.options(v, "settle", "window", "advance", "allow"); f != nil {
			if f["window"] != nil {
				st.Window = p.Duration(f["window"], "settle.window")
			}
			st.Advance = p.Duration(f["advance"], "settle.advance")
			if a := f["allow"]; a != nil {
				// Frames native settlement does not gate, which may come inside the window.
				st.Allow = p.allowedIn(a, st.From, "settle.allow")
			}
		}
	case StepDisconnect:
		st.Close = &CloseSpec{By: proto.Runtime}
		if f := p.options(v, "disconnect", "by", "code", "reason", "awaited", "stopped", "dropped", "any_close", "may_end", "reading"); f != nil {
			if f["by"] != nil {
				st.Close.By = p.peer(f["by"], "disconnect.by")
			}
			if f["code"] != nil {
				c, ok := yamlstrict.Int(f["code"])
				if !ok || c < 1000 || c > 4999 {
					p.Errorf(f["code"].Line, "disconnect.code must be a WebSocket close code (1000–4999)")
				}
				st.Close.Code = c
			}
			st.Close.Reason = p.String(f["reason"], "disconnect.reason")
			if f["awaited"] != nil {
				st.Close.Awaited = p.Bool(f["awaited"], "disconnect.awaited")
			}
			if f["stopped"] != nil {
				st.Close.Stopped = p.Bool(f["stopped"], "disconnect.stopped")
				st.Close.Awaited = st.Close.Awaited || st.Close.Stopped

			}
			if f["dropped"] != nil {
				st.Close.Dropped = p.Bool(f["dropped"], "disconnect.dropped")
				st.Close.Awaited = st.Close.Awaited || st.Close.Dropped
				if st.Close.Dropped && (st.Close.Code != 0 || st.Close.Stopped) {
					p.Errorf(f["dropped"].Line, "disconnect.dropped is a drop without a close frame: it takes no code and is not stopped")
				}
			}
			if f["any_close"] != nil {
				st.Close.AnyClose = p.Bool(f["any_close"], "disconnect.any_close")
				st.Close.Awaited = st.Close.Awaited || st.Close.AnyClose
				if st.Close.AnyClose && (st.Close.Code != 0 || st.Close.Reason != "" || st.Close.Stopped || st.Close.Dropped) {
					p.Errorf(f["any_close"].Line, "disconnect.any_close accepts any end of the transport: it takes no code or reason and is neither stopped nor dropped")
				}
			}
			if f["may_end"] != nil {
				st.Close.MayEnd = p.Bool(f["may_end"], "disconnect.may_end")
				if st.Close.MayEnd && (st.Close.By != proto.Runtime || st.Close.Code != 0 || st.Close.Reason != "" || st.Close.Awaited) {
					p.Errorf(f["may_end"].Line, "disconnect.may_end lets the Runtime end its transport from here on, any way it likes: it is by: runtime and takes no code, reason, awaited, stopped, dropped or any_close")
				}
				if f["reading"] == nil {
					p.Errorf(f["may_end"].Line, "disconnect.may_end needs reading: <entry of docs/spec-readings.md> that lets the Runtime end its transport here")
				}
			}
			if f["reading"] != nil {
				st.Close.Reading = p.String(f["reading"], "disconnect.reading")
				if !st.Close.MayEnd {
					p.Errorf(f["reading"].Line, "disconnect.reading names the reading of a may_end")
				}
			}
			if st.Close.Awaited && st.Close.Code == 0 && !st.Close.Dropped && !st.Close.AnyClose {
				p.Errorf(v.Line, "disconnect.awaited and stopped need the close code the peer must send")
			}
		}
	case StepReconnect:
		if !yamlstrict.IsNull(v) && (v.Kind != yaml.MappingNode || len(v.Content) > 0) {
			p.Errorf(v.Line, "reconnect takes no options")
		}
	case StepAdvance:
		st.Advance = p.Duration(v, "advance")
	case StepStopReading, StepResumeReading:
		st.From = p.peer(v, string(st.Kind))
	case StepAwaitStall:
		st.From = p.peer(v, string(st.Kind))
	case StepExportPull:
		st.From = proto.Runtime // the peer under test: it serves the archive
		st.Export = p.exportPull(v)
		if st.Export == nil {
			return nil
		}
	case StepRestart:
		if st.From = p.peer(v, "restart"); st.From == proto.Runtime {
			p.Errorf(v.Line, "restart: only core restarts (a Runtime's restart is not in the language)")
		}
	case StepAnyOrder:
		if v.Kind != yaml.SequenceNode || len(v.Content) < 2 {
			p.Errorf(v.Line, "any_order needs a list of at least two frame steps")
			return nil
		}
		for _, c := range v.Content {
			if g := p.step(c, true); g != nil {
				if len(st.Group) > 0 && g.From != st.Group[0].From {
					p.Errorf(g.Pos.Line, "any_order frames must all come from one peer")
				}
				st.Group = append(st.Group, g)
			}
		}
		if len(st.Group) > 0 {
			st.From = st.Group[0].From
		}
	case StepCheck:
		st.Check = p.check(v)
	case "include":
		st.Included = p.String(v, "include")
	case stepRepeat:
		p.Errorf(k.Line, "repeat stands only in a scenario's steps: not in any_order, a table or another repeat")
		return nil
	case StepBound:
		f := p.fields(v, "bound", "from", "names")
		if f == nil {
			return nil
		}
		if f["from"] == nil || f["names"] == nil {
			p.Errorf(v.Line, "bound needs from (the peer whose frames bind them) and names (the placeholders, without ${})")
			return nil
		}
		st.From = p.peer(f["from"], "bound.from")
		st.Names = p.Strings(f["names"], "bound.names")
		if len(st.Names) == 0 {
			p.Errorf(f["names"].Line, "bound.names: at least one placeholder name")
		}
		for _, name := range st.Names {
			if !varNameRE.MatchString(name) {
				p.Errorf(f["names"].Line, "bound.names: %q is no placeholder name (a lowercase letter, then lowercase letters, digits or _; no ${})", name)
			}
		}
	case StepFault:
		if v.Kind != yaml.MappingNode {
			p.Errorf(v.Line, "fault takes one rule of the fault schedule language (docs/fault-injection.md)")
			return nil
		}
		st.Fault = p.fault(v)
	default:
		p.Errorf(k.Line, "unknown step kind %q (one of %s)", k.Value, strings.Join(stepKinds, ", "))
		return nil
	}
	return st
}

// exportPull reads an export_pull step: {id, archive}.
func (p *parser) exportPull(n *yaml.Node) *ExportPull {
	f := p.fields(n, "export_pull", "id", "archive")
	if f == nil {
		return nil
	}
	p.checkPlaceholders(n)
	x := &ExportPull{}
	if f["id"] == nil {
		p.Errorf(n.Line, "export_pull.id: the export's id, as its begin carried it, is required")
	} else {
		x.ID = p.String(f["id"], "export_pull.id")
	}
	if a := f["archive"]; a != nil {
		x.Archive = p.value(a, "export_pull.archive")
		if s, ok := x.Archive.(string); ok && !strings.Contains(s, "${") {
			if _, err := base64.StdEncoding.DecodeString(s); err != nil || s == "" {
				p.Errorf(a.Line, "export_pull.archive: a literal archive is its bytes in base64, at least one")
			}
		}
	}
	return x
}

// allowed parses silence.allow: a non-empty list of frames (type, id, payload) the silent peer may
// send instead of nothing. They are read, never written: a scripted peer keeps the silence.
func (p *parser) allowed(n *yaml.Node, from proto.Peer) []*Step {
	return p.allowedIn(n, from, "silence.allow")
}

func (p *parser) allowedIn(n *yaml.Node, from proto.Peer, what string) []*Step {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.Errorf(n.Line, "%s: a list of the frames the peer may send instead of nothing", what)
		return nil
	}
	if from == "" {
		return nil
	}
	var out []*Step
	for _, c := range n.Content {
		ft := p.frame(c, from)
		if ft == nil {
			continue
		}
		if ft.Raw != nil || ft.Invalid != "" || ft.Lost || ft.Copies > 0 || ft.Corrupted != "" || ft.Optional || ft.PadPayloadTo > 0 {
			p.Errorf(c.Line, "%s holds frames a peer may send as they are: no raw, invalid, lost, copies, corrupted, optional or pad_payload_to", what)
			continue
		}
		out = append(out, &Step{Kind: StepKind(from), Pos: ft.Pos, From: from, Frame: ft})
	}
	return out
}

func (p *parser) peer(n *yaml.Node, what string) proto.Peer {
	switch s := proto.Peer(p.String(n, what)); s {
	case proto.Core, proto.Runtime:
		return s
	default:
		p.Errorf(n.Line, "%s must be core or runtime, got %q", what, s)
		return ""
	}
}

func (p *parser) check(n *yaml.Node) *Check {
	f := p.fields(n, "check", "capabilities", "turn", "preparation", "workspace", "suspension", "subagents", "interaction", "decision", "start", "admission", "device_status", "journal", "cancel", "input", "interactions")
	if f == nil {
		return nil
	}
	c := &Check{Pos: p.pos(n)}
	if len(f) != 1 {
		p.Errorf(n.Line, "check needs exactly one of capabilities, turn, preparation, workspace, suspension, subagents, interaction, decision, start, admission, device_status, journal, cancel, input, interactions")
		return nil
	}
	if v := f["preparation"]; v != nil {
		c.Preparation = p.preparationCheck(v)
	}
	if v := f["capabilities"]; v != nil {
		cf := p.fields(v, "check.capabilities", "kind", "declared", "supports", "lacks")
		if cf != nil {
			c.Capabilities = &CapabilitiesCheck{Kind: p.String(cf["kind"], "kind"), Declared: p.String(cf["declared"], "declared"),
				Supports: p.Strings(cf["supports"], "check.capabilities.supports"), Lacks: p.Strings(cf["lacks"], "check.capabilities.lacks")}
			if c.Capabilities.Declared != "none" && c.Capabilities.Declared != "complete" {
				p.Errorf(v.Line, "check.capabilities.declared must be none or complete")
			}
			for _, k := range []string{"supports", "lacks"} {
				if cf[k] == nil {
					continue
				}
				if c.Capabilities.Declared != "complete" {
					p.Errorf(cf[k].Line, "check.capabilities.%s needs declared: complete", k)
				}
				for _, name := range cf[k].Content {
					if !slices.Contains(proto.CapabilityNames(), name.Value) {
						p.Errorf(name.Line, "check.capabilities.%s: %q is not a capability", k, name.Value)
					}
				}
			}
		}
	}
	if v := f["workspace"]; v != nil {
		c.Workspace = p.workspaceCheck(v)
	}
	if v := f["suspension"]; v != nil {
		c.Suspension = p.suspensionCheck(v)
	}
	if v := f["subagents"]; v != nil {
		c.Subagents = p.subagentsCheck(v)
	}
	if v := f["journal"]; v != nil {
		c.Journal = p.journalCheck(v)
	}
	if v := f["interaction"]; v != nil {
		c.Interaction = p.interactionCheck(v)
	}
	if v := f["interactions"]; v != nil {
		c.Interactions = p.interactionsCheck(v)
	}
	if v := f["decision"]; v != nil {
		c.Decision = p.decisionCheck(v)
	}
	if v := f["start"]; v != nil {
		c.Start = p.startCheck(v)
	}
	if v := f["admission"]; v != nil {
		c.Admission = p.admissionCheck(v)
	}
	if v := f["device_status"]; v != nil {
		c.DeviceStatus = p.deviceStatusCheck(v)
	}
	if v := f["cancel"]; v != nil {
		c.Cancel = p.cancelCheck(v)
	}
	if v := f["input"]; v != nil {
		c.Input = p.inputCheck(v)
	}
	if v := f["turn"]; v != nil {
		tf := p.fields(v, "check.turn", "run", "status", "reason", "engine", "preparation_error_code", "usage", "content", "engine_http_status", "error")
		if tf != nil {
			c.Turn = &TurnCheck{Status: p.String(tf["status"], "status"), Reason: p.String(tf["reason"], "reason"),
				PreparationCode: p.String(tf["preparation_error_code"], "preparation_error_code")}
			if e := tf["engine"]; e != nil && e.Kind == yaml.MappingNode {
				m, _ := p.value(e, "check.turn.engine_error_code").(*Matcher)
				ok := m != nil && m.OneOf != nil
				for _, alt := range m.OneOf {
					if _, isString := alt.(string); !isString {
						ok = false
					}
				}
				if !ok {
					p.Errorf(e.Line, "check.turn.engine is a code or {$one_of: [codes], reading: <entry>}")
				} else {
					c.Turn.EngineOneOf = m
				}
			} else {
				c.Turn.Engine = p.String(e, "engine")
			}
			if c.Turn.PreparationCode != "" && !proto.KnownPreparationCode(c.Turn.PreparationCode) {
				p.Errorf(tf["preparation_error_code"].Line, "check.turn.preparation_error_code %q is not a preparation error code (facts §4.3)", c.Turn.PreparationCode)
			}
			if u := tf["usage"]; u != nil {
				if u.Kind != yaml.MappingNode {
					p.Errorf(u.Line, "check.turn.usage must be a usage snapshot (the members of a usage frame's payload)")
				} else {
					p.checkPlaceholders(u)
					c.Turn.Usage = p.value(u, "check.turn.usage")
					// The snapshot is what a usage frame carries: it must be one.
					if err := checkUsage(c.Turn.Usage, p.vars); err != nil {
						p.Errorf(u.Line, "check.turn.usage is not a usage snapshot: %v", err)
					}
				}
			}
			if tf["content"] != nil {
				s := p.String(tf["content"], "content")
				c.Turn.Content = &s
			}
			if e := tf["error"]; e != nil {
				s := p.String(e, "error")
				c.Turn.Error = &s
				if c.Turn.Reason != proto.ReasonEngineFailed {
					p.Errorf(e.Line, "check.turn.error is the error frame's text an engine_failed Turn keeps (PJ-08.2): it needs reason: engine_failed")
				}
			}
			if n := tf["engine_http_status"]; n != nil {
				status, err := strconv.Atoi(n.Value)
				if n.Kind != yaml.ScalarNode || err != nil || status != 0 && (status < 100 || status > 599) {
					p.Errorf(n.Line, "check.turn.engine_http_status must be 0 or an integer from 100 to 599 (facts §6.1)")
				}
				c.Turn.EngineHTTPStatus = &status
			}
			if tf["run"] == nil {
				p.Errorf(v.Line, "check.turn.run is required")
			} else {
				c.Turn.Run = p.String(tf["run"], "run")
				p.checkPlaceholders(tf["run"])
			}
			if !proto.KnownTurnStatus(c.Turn.Status) {
				p.Errorf(v.Line, "check.turn.status must be completed, failed or cancelled")
			}
			if c.Turn.Reason != "" && !proto.KnownTurnReason(c.Turn.Reason) {
				p.Errorf(v.Line, "check.turn.reason %q is not a listed Turn outcome reason (facts §6.2)", c.Turn.Reason)
			}
		}
	}
	return c
}

// preparationCheck reads check.preparation: {state, error_code?, exit_code?, operation?}.
func (p *parser) preparationCheck(v *yaml.Node) *PreparationCheck {
	pf := p.fields(v, "check.preparation", "state", "error_code", "exit_code", "operation", "refuses", "body", "body_bytes", "code")
	if pf == nil {
		return nil
	}
	if pf["refuses"] != nil {
		return p.preparationRefusal(v, pf)
	}
	if pf["code"] != nil {
		p.Errorf(pf["code"].Line, "check.preparation.code belongs to refuses; a result check names error_code")
	}
	for _, k := range []string{"body", "body_bytes"} {
		if pf[k] != nil {
			p.Errorf(pf[k].Line, "check.preparation.%s belongs to refuses", k)
		}
	}
	c := &PreparationCheck{State: p.String(pf["state"], "state"), ErrorCode: p.String(pf["error_code"], "error_code")}
	if !slices.Contains(PreparationStates, c.State) {
		p.Errorf(v.Line, "check.preparation.state must be completed, rejected, failed or unknown")
	}
	outcome := map[string]string{"rejected": proto.OutcomeRejected, "failed": proto.OutcomeFailed, "unknown": proto.OutcomeUnknown}[c.State]
	if c.ErrorCode != "" && !proto.KnownRuntimePrepareCode(outcome, c.ErrorCode) {
		p.Errorf(pf["error_code"].Line, "check.preparation.error_code %q is not a runtime_prepare_result code of %s (facts §4.2)", c.ErrorCode, c.State)
	}
	for _, k := range []string{"exit_code", "operation"} {
		if pf[k] == nil {
			continue
		}
		n, err := strconv.Atoi(pf[k].Value)
		if err != nil || n < 0 {
			p.Errorf(pf[k].Line, "check.preparation.%s must be a non-negative integer", k)
			continue
		}
		if k == "exit_code" {
			c.ExitCode = &n
		} else {
			c.Operation = &n
		}
	}
	return c
}

// preparationRefusal reads check.preparation {refuses: <a runtime_prepare begin payload>, code}.
func (p *parser) preparationRefusal(v *yaml.Node, pf map[string]*yaml.Node) *PreparationCheck {
	c := &PreparationCheck{Refuses: p.value(pf["refuses"], "check.preparation.refuses"), Code: p.String(pf["code"], "code")}
	if c.Code == "" {
		p.Errorf(v.Line, "check.preparation.refuses needs the code Core refuses it with")
	}
	if _, ok := c.Refuses.(map[string]Value); !ok {
		p.Errorf(pf["refuses"].Line, "check.preparation.refuses must be the payload of a runtime_prepare begin")
	}
	if n := pf["body"]; n != nil {
		// A plain string, or {$repeat: ...} for a body a size bound needs.
		if s, ok := p.value(n, "check.preparation.body").(string); ok {
			c.Body = &s
		} else {
			p.Errorf(n.Line, "check.preparation.body must be a string (or a $repeat of one)")
		}
	}
	if n := pf["body_bytes"]; n != nil {
		size, ok := yamlstrict.Int(n)
		switch {
		case !ok || size < 1 || size > maxBodyBytes:
			p.Errorf(n.Line, "check.preparation.body_bytes must be an integer from 1 to %d", maxBodyBytes)
		case pf["body"] != nil:
			p.Errorf(n.Line, "check.preparation holds one of body, body_bytes")
		default:
			c.BodyBytes = size
		}
	}
	for _, k := range []string{"state", "error_code", "exit_code", "operation"} {
		if pf[k] != nil {
			p.Errorf(pf[k].Line, "check.preparation.%s belongs to a result check, not to refuses", k)
		}
	}
	return c
}

// checkUsage validates a usage template as the payload of a usage frame.
func checkUsage(usage Value, vars map[string]Value) error {
	raw, err := renderFrame(&FrameTemplate{Type: proto.TypeUsage, ID: "run", Payload: usage}, BindingsWith(vars), readableValue)
	if err != nil {
		return err
	}
	_, err = proto.ParseFrame(raw)
	return err
}

func (p *parser) frame(n *yaml.Node, from proto.Peer) *FrameTemplate {
	f := p.fields(n, string(from)+" frame", "type", "id", "payload", "trace", "invalid", "raw", "lost", "copies", "corrupted", "optional", "pad_payload_to", "body_bytes")
	if f == nil {
		return nil
	}
	ft := &FrameTemplate{Pos: p.pos(n), Invalid: p.String(f["invalid"], "invalid")}
	if v := f["lost"]; v != nil {
		ft.Lost = p.Bool(v, "lost")
	}
	if v := f["copies"]; v != nil {
		c, ok := yamlstrict.Int(v)
		if !ok || c < 2 {
			p.Errorf(v.Line, "copies must be a number of at least 2")
		}
		ft.Copies = c
	}
	if v := f["corrupted"]; v != nil {
		ft.Corrupted = p.String(v, "corrupted")
		if !slices.Contains([]string{"invalid_json", "invalid_frame", "oversize"}, ft.Corrupted) {
			p.Errorf(v.Line, "corrupted must be invalid_json, invalid_frame or oversize")
		}
	}
	if v := f["pad_payload_to"]; v != nil {
		c, ok := yamlstrict.Int(v)
		if !ok || c < 2 || c > proto.MaxFrameBytes {
			p.Errorf(v.Line, "pad_payload_to must be a number of bytes from 2 to %d (the frame limit)", proto.MaxFrameBytes)
		} else if f["payload"] == nil && f["raw"] == nil {
			p.Errorf(v.Line, "pad_payload_to needs a payload to pad")
		}
		ft.PadPayloadTo = c
	}
	if v := f["body_bytes"]; v != nil {
		n, ok := yamlstrict.Int(v)
		if !ok || n < 1 || n > maxBodyBytes {
			p.Errorf(v.Line, "body_bytes must be an integer from 1 to %d", maxBodyBytes)
		}
		ft.BodyBytes = n
	}
	if v := f["optional"]; v != nil {
		ft.Optional = p.Bool(v, "optional")
		for _, k := range []string{"invalid", "raw", "lost", "copies", "corrupted"} {
			if ft.Optional && f[k] != nil {
				p.Errorf(v.Line, "optional is a frame the peer may send as it is: not with %s", k)
			}
		}
	}
	for _, k := range []string{"lost", "copies", "corrupted"} {
		if f[k] != nil && f["raw"] != nil {
			p.Errorf(f[k].Line, "%s describes a fault on a real frame, not on raw bytes", k)
		}
	}
	if v := f["raw"]; v != nil {
		s := p.String(v, "raw")
		ft.Raw = &s
		if len(f) > 1 && !(len(f) == 2 && f["invalid"] != nil) && f["lost"] == nil && f["copies"] == nil && f["corrupted"] == nil {
			p.Errorf(n.Line, "a raw frame carries only raw (and invalid)")
		}
		if ft.Invalid == "" {
			p.Errorf(n.Line, "a raw frame must declare the error it provokes with invalid:")
		}
		return ft
	}
	if f["type"] == nil {
		p.Errorf(n.Line, "%s frame: type is required", from)
		return nil
	}
	ft.Type = p.String(f["type"], "type")
	spec, ok := proto.Lookup(ft.Type)
	if !ok {
		if ft.Invalid == "" {
			p.Errorf(f["type"].Line, "unknown message type %q", ft.Type)
		}
	} else if spec.From != from && ft.Invalid == "" {
		p.Errorf(f["type"].Line, "%s is sent by %s, not %s", ft.Type, spec.From, from)
	}
	if v := f["id"]; v != nil {
		if v.Kind == yaml.MappingNode {
			// A matcher: {$all: ["${key}", {$regex: ...}]} keys the step and checks the id's form.
			if m, ok := p.value(v, "id").(*Matcher); ok {
				ft.ID = m
			} else {
				p.Errorf(v.Line, "id is a string (${name} placeholders allowed) or a matcher such as {$all: [\"${name}\", {$regex: ...}]}")
			}
		} else {
			ft.ID = p.String(v, "id")
		}
		p.checkPlaceholders(v)
	}
	if v := f["payload"]; v != nil {
		ft.Payload = p.value(v, "payload")
		p.checkPlaceholders(v)
	}
	if v := f["trace"]; v != nil {
		ft.Trace = p.value(v, "trace")
		p.checkPlaceholders(v)
	}
	if spec != nil {
		if err := CheckFrame(ft, p.vars); err != nil {
			p.Errorf(n.Line, "%v", err)
		}
	}
	return ft
}

// value converts a YAML node into a template value: numbers stay exact (json.Number), and
// matchers and $capabilities are read by special.
func (p *parser) value(n *yaml.Node, what string) Value { return p.Value(n, what, p.values) }

// special reads the mappings that are not plain JSON objects: {$capabilities: [...]},
// {$repeat: {text, count}} and matchers.
func (p *parser) special(n *yaml.Node, what string) (Value, bool) {
	if len(n.Content) == 2 && n.Content[0].Value == "$capabilities" {
		return p.capabilities(n.Content[1]), true
	}
	if len(n.Content) == 2 && n.Content[0].Value == "$repeat" {
		return p.repeat(n.Content[1]), true
	}
	if m := p.matcher(n, what); m != nil {
		return m, true
	}
	return nil, false
}

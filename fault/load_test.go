package fault_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/scenarios"
)

// The committed examples load, and say what the same schedule built in Go says.
func TestExamplesMatchTheGoAPI(t *testing.T) {
	want := map[string]*fault.Schedule{
		"lost-receipts.yaml": {Seed: 20260101, Rules: []fault.Rule{
			{Name: "lose-written", Match: fault.Match{Direction: fault.RuntimeToCore, Type: "prompt_steer_ack", Payload: map[string]any{"phase": "written"}, Nth: 1}, Action: fault.Drop()},
			{Name: "late-cancel-receipt", Match: fault.Match{Direction: fault.RuntimeToCore, Type: "interaction_decision_ack", IDFrom: "run", Nth: 1}, Action: fault.Delay(16 * time.Second)},
			{Name: "ready-twice", Match: fault.Match{Type: "preparation_status", Payload: map[string]any{"state": "ready"}, Nth: 1}, Action: fault.Duplicate(1)},
		}},
		"connection-loss.yaml": {Rules: []fault.Rule{
			{Name: "cut-after-started", Match: fault.Match{Direction: fault.RuntimeToCore, Type: "preparation_status", Payload: map[string]any{"state": "started"}, Nth: 1}, Action: fault.Cut()},
			{Name: "core-busy", Match: fault.Match{Type: "preparation_status", Payload: map[string]any{"state": "started"}, Nth: 1}, Action: fault.RefuseReconnect(2, 503)},
		}},
		"noisy-link.yaml": {Rules: []fault.Rule{
			{Name: "lossy-deltas", Match: fault.Match{Direction: fault.RuntimeToCore, Type: "delta", Probability: 0.05}, Action: fault.Drop()},
			{Name: "echoed-deltas", Match: fault.Match{Direction: fault.RuntimeToCore, Type: "delta", Probability: 0.05}, Action: fault.Action{Kind: fault.ActDuplicate}},
			{Name: "swapped-deltas", Match: fault.Match{Direction: fault.RuntimeToCore, Type: "delta", Probability: 0.05}, Action: fault.Reorder()},
		}},
		"retired.yaml": {Rules: []fault.Rule{
			{Name: "retire", Match: fault.Match{Type: "heartbeat", Nth: 1}, Action: fault.CloseAfter(4001, "runtime retired", 2*time.Second)},
			{Name: "silent-runtime", Match: fault.Match{Type: "heartbeat", Nth: 2}, Action: fault.HalfOpen(fault.RuntimeToCore, 0)},
			{Name: "broken-status", Match: fault.Match{Type: "preparation_status", Nth: 1}, Action: fault.Corrupt(fault.InvalidFrame)},
		}},
	}
	files, _ := filepath.Glob("testdata/*.yaml")
	if len(files) != len(want) {
		t.Fatalf("testdata has %d schedules, the test knows %d: %v", len(files), len(want), files)
	}
	for _, f := range files {
		got, err := fault.LoadFile(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if d := cmp.Diff(want[filepath.Base(f)], got); d != "" {
			t.Errorf("%s (-Go API +YAML):\n%s", f, d)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// Every mistake is an error at file:line that names the member and the rule.
func TestLoaderErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"unknown top-level key", "rule: []\n", []string{`x.yaml:1: schedule: unknown key "rule" (allowed: seed, rules)`, "x.yaml:1: schedule: rules is required"}},
		{"unknown rule key", "rules:\n  - name: a\n    drop: {}\n    when: now\n", []string{`x.yaml:4: rule: unknown key "when"`}},
		{"unknown match key", "rules:\n  - name: a\n    match: {typ: delta}\n    drop: {}\n", []string{`x.yaml:3: match: unknown key "typ" (allowed: direction, type, id, id_from, payload, undecodable, nth, probability)`}},
		{"unknown action option", "rules:\n  - name: a\n    delay: {for: 1s, jitter: 2s}\n", []string{`x.yaml:3: delay: unknown key "jitter" (allowed: for, block)`}},
		{"no action", "rules:\n  - name: a\n    match: {type: delta}\n", []string{`x.yaml:2: rule "a": an action is required: one of drop, delay, duplicate, reorder, corrupt, cut, refuse_reconnect, close`}},
		{"two actions", "rules:\n  - name: a\n    drop: {}\n    cut: {}\n", []string{`x.yaml:4: rule "a": one action per rule; drop and cut are both given`}},
		{"no name", "rules:\n  - drop: {}\n", []string{`x.yaml:2: rule: name: is required`}},
		{"duplicate names", "rules:\n  - {name: a, drop: {}}\n  - {name: a, cut: {}}\n", []string{`x.yaml:3: rule "a": the name is already used by the rule at line 2`}},
		{"unknown type", "rules:\n  - name: a\n    match:\n      type: deltas\n    drop: {}\n", []string{`x.yaml:4: rule "a": match.type: unknown message type "deltas"`}},
		{"type the direction never carries", "rules:\n  - name: a\n    match: {direction: core→runtime, type: delta}\n    drop: {}\n", []string{`x.yaml:3: rule "a": match.type: delta is sent by runtime; core→runtime never carries it`}},
		{"bad direction", "rules:\n  - name: a\n    match: {direction: up}\n    drop: {}\n", []string{`x.yaml:3: match.direction: direction must be core→runtime, runtime→core or both`}},
		{"negative nth", "rules:\n  - name: a\n    match: {nth: -1}\n    drop: {}\n", []string{`x.yaml:3: match.nth must be a non-negative integer, got "-1"`}},
		{"probability above 1", "rules:\n  - name: a\n    match:\n      probability: 1.5\n    drop: {}\n", []string{`x.yaml:4: rule "a": match.probability: must be between 0 and 1, got 1.5`}},
		{"probability as a string", "rules:\n  - name: a\n    match: {probability: often}\n    drop: {}\n", []string{`x.yaml:3: match.probability must be a number between 0 and 1, got "often"`}},
		{"id and id_from", "rules:\n  - name: a\n    match: {id: x, id_from: run}\n    drop: {}\n", []string{`x.yaml:3: rule "a": match.id: give id or id_from, not both`}},
		{"bad placeholder", "rules:\n  - name: a\n    match: {id_from: Run-ID}\n    drop: {}\n", []string{`x.yaml:3: rule "a": match.id_from: "Run-ID" must be a placeholder name`}},
		{"undecodable with a type", "rules:\n  - name: a\n    match: {undecodable: true, type: delta}\n    drop: {}\n", []string{`x.yaml:3: rule "a": match.undecodable: a frame that is not an envelope has no type`}},
		{"delay without for", "rules:\n  - name: a\n    delay: {}\n", []string{`x.yaml:3: delay.for is required (e.g. 31s)`}},
		{"delay with a bad duration", "rules:\n  - name: a\n    delay:\n      for: soon\n", []string{`x.yaml:4: delay.for must be a duration such as 500ms, 31s or 5m, got "soon"`}},
		{"duplicate count 0", "rules:\n  - name: a\n    duplicate: {count: 0}\n", []string{`x.yaml:3: duplicate.count must be 1 or more`}},
		{"duplicate count too high", "rules:\n  - name: a\n    duplicate:\n      count: 1000\n", []string{`x.yaml:4: rule "a": duplicate.count: must be 1 to 100 extra copies, got 1000`}},
		{"corrupt without kind", "rules:\n  - name: a\n    corrupt: {}\n", []string{`x.yaml:3: corrupt.kind is required: invalid_json, oversize or invalid_frame`}},
		{"corrupt with a bad kind", "rules:\n  - name: a\n    corrupt:\n      kind: flip_bits\n", []string{`x.yaml:4: rule "a": corrupt.kind: must be invalid_json, oversize or invalid_frame, got "flip_bits"`}},
		{"refuse with a success status", "rules:\n  - name: a\n    refuse_reconnect:\n      status: 200\n", []string{`x.yaml:4: rule "a": refuse_reconnect.status: must be an HTTP error status (400–599), got 200`}},
		{"refuse with a code of another status", "rules:\n  - name: a\n    refuse_reconnect:\n      status: 503\n      error: bad_credential\n", []string{`x.yaml:5: rule "a": refuse_reconnect.error: "bad_credential" goes with 401, not 503`}},
		{"close with a reserved code", "rules:\n  - name: a\n    close:\n      code: 1006\n", []string{`x.yaml:4: rule "a": close.code: 1006 cannot be sent in a close frame`}},
		{"half-open with a code", "rules:\n  - name: a\n    close:\n      half_open: true\n      code: 4001\n", []string{`rule "a": close.half_open: a half-open connection sends no close frame`}},
		{"stop without half-open", "rules:\n  - name: a\n    close:\n      stop: both\n", []string{`x.yaml:4: rule "a": close.stop: applies only to half_open`}},
		{"half_open not a bool", "rules:\n  - name: a\n    close: {half_open: yes please}\n", []string{`x.yaml:3: close.half_open must be true or false, got "yes please"`}},
		{"bad seed", "seed: -3\nrules:\n  - {name: a, drop: {}}\n", []string{`x.yaml:1: seed must be an unsigned 64-bit integer, got "-3"`}},
		{"rules not a list", "rules: {name: a}\n", []string{`x.yaml:1: rules must be a list of rules`}},
		{"empty rules", "rules: []\n", []string{`x.yaml:1: rules is empty; a schedule needs at least one rule`}},
		{"empty file", "", []string{`x.yaml:1: the file is empty; a schedule needs rules`}},
		{"two documents", "rules:\n  - {name: a, drop: {}}\n---\nrules: []\n", []string{`x.yaml:3: a schedule file holds one YAML document`}},
		{"broken YAML", "rules:\n  - name: a\n\tdrop: {}\n", []string{`x.yaml:2: found a tab character that violates indentation`}},
		// The strict walker (internal/yamlstrict), shared with scenarios.
		{"merge key", "rules:\n  - <<: {name: a}\n    drop: {}\n", []string{`x.yaml:2: YAML merge keys (<<) are not supported in fault schedules`}},
		{"tag", "rules:\n  - {name: !!str a, drop: {}}\n", []string{`x.yaml:2: YAML tags (!!str) are not supported in fault schedules`}},
		{"a name that is a boolean", "rules:\n  - {name: true, drop: {}}\n", []string{`x.yaml:2: name must be a string`}},
		{"a null schedule", "~\n", []string{`x.yaml:1: schedule must be a mapping`}},
		{"a null rule", "rules:\n  - ~\n", []string{`x.yaml:2: rule must be a mapping`}},
		{"not a JSON number", "rules:\n  - name: a\n    match: {payload: {x: .5}}\n    drop: {}\n", []string{`x.yaml:3: ".5" is not a JSON number`}},
		{"nested duplicate key", "rules:\n  - name: a\n    match: {payload: {x: {y: 1, y: 2}}}\n    drop: {}\n", []string{`x.yaml:3: match.payload.x: duplicate key "y"`}},
		{"every error, not only the first", "rules:\n  - name: a\n    match: {typ: delta}\n    drop: {}\n  - name: b\n    delay: {for: x}\n",
			[]string{`x.yaml:3: match: unknown key "typ"`, `x.yaml:6: delay.for must be a duration`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fault.LoadSchedule("x.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("loaded without error; want %q", tc.want)
			}
			var errs fault.LoadErrors
			if !errors.As(err, &errs) {
				t.Fatalf("error %T is not LoadErrors: %v", err, err)
			}
			if len(errs) != len(tc.want) {
				t.Errorf("%d errors, want %d:\n%v", len(errs), len(tc.want), err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("errors lack %q; got:\n%v", w, err)
				}
			}
		})
	}
}

// ParseRule decodes the body of a scenario's fault step, with the node's lines.
func TestParseRuleFromAScenarioNode(t *testing.T) {
	var doc yaml.Node
	src := "steps:\n  - fault:\n      name: lose-it\n      match: {type: done, id: \"${run}\"}\n      drop: {}\n  - fault:\n      name: bad\n      cut: {often: true}\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	steps := doc.Content[0].Content[1].Content
	rule, err := fault.ParseRule("sc.yaml", steps[0].Content[1])
	if err != nil {
		t.Fatal(err)
	}
	want := fault.Rule{Name: "lose-it", Match: fault.Match{Type: "done", IDFrom: "run"}, Action: fault.Drop()}
	if d := cmp.Diff(want, rule); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	_, err = fault.ParseRule("sc.yaml", steps[1].Content[1])
	if err == nil || err.Error() != `sc.yaml:8: cut: unknown key "often" (allowed: )` {
		t.Errorf("got %v", err)
	}
}

// The Go API validates what the loader validates.
func TestGoAPIValidation(t *testing.T) {
	for _, tc := range []struct {
		rule fault.Rule
		want string
	}{
		{fault.Rule{Action: fault.Drop()}, `rule: name: is required`},
		{fault.Rule{Name: "a"}, `rule "a": an action is required`},
		{fault.Rule{Name: "a", Action: fault.Action{Kind: "explode"}}, `rule "a": unknown action "explode"`},
		{fault.Rule{Name: "a", Action: fault.Delay(0)}, `rule "a": delay.for: must be a positive duration, got 0s`},
		{fault.Rule{Name: "a", Match: fault.Match{Direction: "sideways"}, Action: fault.Cut()}, `rule "a": match.direction: direction must be`},
		{fault.Rule{Name: "a", Match: fault.Match{Payload: map[string]any{"x": func() {}}}, Action: fault.Cut()}, `rule "a": match.payload.x: is not a JSON value`},
		{fault.Rule{Name: "a", Action: fault.CloseAfter(1000, strings.Repeat("r", 124), 0)}, `rule "a": close.reason: must be at most 123 bytes, got 124`},
		{fault.Rule{Name: "a", Action: fault.HalfOpen("up", 0)}, `rule "a": close.stop: direction must be`},
	} {
		err := tc.rule.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.rule, err, tc.want)
		}
	}
	s := &fault.Schedule{Rules: []fault.Rule{{Name: "a", Action: fault.Drop()}, {Name: "a", Action: fault.Cut()}}}
	if err := s.Validate(); err == nil || err.Error() != `rule "a": name: is used by an earlier rule; names are unique` {
		t.Errorf("duplicate names: %v", err)
	}
	if _, err := fault.New("ws://core/api/v1", nil, fault.Options{}); err == nil || !strings.Contains(err.Error(), "must be Core's absolute http(s) base URL") {
		t.Errorf("a bad upstream: %v", err)
	}
	if _, err := fault.New("http://core/api/v1", s, fault.Options{}); err == nil || !strings.Contains(err.Error(), "names are unique") {
		t.Errorf("an invalid schedule: %v", err)
	}
}

// Aliases are refused everywhere, as in scenarios, with the anchor they name: an alias
// re-expands its anchor at every use, and a rule spelled out is one a reader can see.
func TestAliasesAreRefused(t *testing.T) {
	_, err := fault.LoadSchedule("x.yaml", []byte("rules:\n  - &r {name: a, drop: {}}\n  - *r\n"))
	want := "x.yaml:2: YAML anchors (&r) are not supported in fault schedules\n" +
		"x.yaml:3: YAML aliases (*r) are not supported in fault schedules"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

// YAML spells true as true, True or TRUE; all three are true (the old check took only "true").
func TestTrueIsTrueInEverySpelling(t *testing.T) {
	s, err := fault.LoadSchedule("x.yaml", []byte("rules:\n  - {name: a, match: {payload: {ok: True}}, close: {half_open: TRUE}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Rules[0]; !r.Action.HalfOpen || r.Match.Payload["ok"] != true {
		t.Fatalf("got %+v", r)
	}
}

// ParseRule checks the node it is given as LoadSchedule checks a file.
func TestParseRuleRefusesAliases(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("a: &m {type: done}\nrule: {name: a, match: *m, drop: {}}\n"), &doc); err != nil {
		t.Fatal(err)
	}
	_, err := fault.ParseRule("sc.yaml", doc.Content[0].Content[3])
	if err == nil || err.Error() != "sc.yaml:2: YAML aliases (*m) are not supported in fault schedules" {
		t.Fatalf("got %v", err)
	}
}

// A scenario's fault steps are decoded as the scenario loads (this package registers the
// decoder): the step holds the Rule, and a broken rule is a load error at its line.
func TestScenarioFaultStepsDecodeAtLoad(t *testing.T) {
	src := "id: x/faults\ntitle: Faults\nspec: [runtime-protocol.md#x]\nsteps:\n" +
		"- fault: {name: lose-it, match: {type: done, id: \"${run}\"}, drop: {}}\n"
	scs, err := scenarios.Parse("sc.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cat, errs := scenarios.Link(scs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := fault.Rule{Name: "lose-it", Match: fault.Match{Type: "done", IDFrom: "run"}, Action: fault.Drop()}
	if d := cmp.Diff(any(want), cat.Scenarios[0].Steps[0].Fault.Rule); d != "" {
		t.Errorf("the fault step's rule (-want +got):\n%s", d)
	}
	_, err = scenarios.Parse("sc.yaml", []byte(src+"- fault:\n    name: bad\n    cut: {often: true}\n"))
	if err == nil || !strings.Contains(err.Error(), `sc.yaml:8: cut: unknown key "often"`) {
		t.Errorf("a broken rule loads with %v; want the error at its line", err)
	}
}

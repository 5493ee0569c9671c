package scenarios

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// The spec text itself, where the checkout has it beside the project (../shared/spec): a clause
// that quotes a phrase of the spec is checked against it; without it only headings are checked.
const runtimeProtocolFile = "../../shared/spec/runtime-protocol.md"

var (
	trailingTagRE = regexp.MustCompile(`\[([^\[\]]+)\]\s*$`)
	sectionRE     = regexp.MustCompile(`§\s*([0-9]+(?:\.[0-9]+)*)`)
	slugDropRE    = regexp.MustCompile(`[^a-z0-9 -]+`)
	crossRefRE    = regexp.MustCompile(`\b[A-Z]{2}-[0-9]{2,3}\b`)
)

func slugify(s string) string {
	s = slugDropRE.ReplaceAllString(strings.ToLower(s), "")
	return strings.Join(strings.Fields(s), "-")
}

// publicText resolves where a clause is stated: each source its text cites at its end ([facts
// §4.3], [runtime-protocol "Failures, retries and cleanup"], [contract-harness §12],
// [spec-readings <entry>]), or, when it cites none, its rule's section column, must name text a
// third party reads: a heading of protocol-facts.md or runtime-protocol.md (spec_anchors.txt), a
// phrase of runtime-protocol.md, a section of docs/contract-harness.md, or an entry of
// docs/spec-readings.md. It returns the sources that resolve to nothing.
type publicText struct {
	anchors  map[string]bool
	readings map[string]int
	spec     string // runtime-protocol.md, lowercased; "" when the checkout lacks it
}

func (p publicText) unresolved(c Clause) []string {
	var parts []string
	if m := trailingTagRE.FindStringSubmatch(c.Text); m != nil {
		for _, part := range strings.Split(m[1], ";") {
			// "[SU-01]", "[Runtime's refusal: AD-09.2-9.4]": a pointer to another rule, no source.
			if !crossRefRE.MatchString(part) || p.resolves(strings.TrimSpace(part)) {
				parts = append(parts, part)
			}
		}
	}
	if r, ok := RuleByID(c.Rule); ok && len(parts) == 0 {
		parts = strings.Split(r.Section, "/")
	}
	if len(parts) == 0 {
		return []string{"(no source: the clause cites none and its rule has no section)"}
	}
	var bad []string
	for _, part := range parts {
		if !p.resolves(strings.TrimSpace(part)) {
			bad = append(bad, strings.TrimSpace(part))
		}
	}
	return bad
}

func (p publicText) resolves(part string) bool {
	switch {
	case strings.HasPrefix(part, "spec-readings"):
		_, ok := p.readings[strings.TrimSpace(strings.TrimPrefix(part, "spec-readings"))]
		return ok
	case strings.HasPrefix(part, "contract-harness"):
		return p.sections(part, "contract-harness.md#")
	case strings.Contains(part, "runtime-protocol") || strings.HasPrefix(part, "spec:"):
		return p.runtimeProtocol(part)
	case strings.Contains(part, "§"):
		return p.sections(part, "protocol-facts.md#")
	}
	return false
}

// sections: every §N.N the part names is a numbered heading of the file the prefix names.
func (p publicText) sections(part, prefix string) bool {
	ms := sectionRE.FindAllStringSubmatch(part, -1)
	if len(ms) == 0 {
		return false
	}
	for _, m := range ms {
		want := prefix + strings.ReplaceAll(m[1], ".", "") + "-"
		found := false
		for a := range p.anchors {
			found = found || strings.HasPrefix(a, want)
		}
		if !found {
			return false
		}
	}
	return true
}

// runtimeProtocol: the part names a heading of runtime-protocol.md, or quotes a phrase of it.
func (p publicText) runtimeProtocol(part string) bool {
	rest := part
	for _, w := range []string{"runtime-protocol.md", "runtime-protocol", "spec:"} {
		rest = strings.ReplaceAll(rest, w, " ")
	}
	slug := slugify(rest)
	for a := range p.anchors {
		if h, ok := strings.CutPrefix(a, "runtime-protocol.md#"); ok && strings.Contains(slug, h) {
			return true
		}
	}
	if p.spec == "" {
		return true // the phrase cannot be checked here; the headings were
	}
	for _, piece := range strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ':' || r == '"' }) {
		if piece = strings.ToLower(strings.TrimSpace(piece)); piece != "" && !strings.Contains(p.spec, piece) {
			return false
		}
	}
	return true
}

func loadPublicText(t *testing.T) publicText {
	t.Helper()
	p := publicText{anchors: specAnchors(t), readings: readingEntries(t)}
	if b, err := os.ReadFile(runtimeProtocolFile); err == nil {
		p.spec = strings.ToLower(string(b))
	} else {
		t.Logf("%s not found: phrases quoted from it are not checked", runtimeProtocolFile)
	}
	return p
}

// Every clause a catalog scenario enforces is stated where a third party reads (W3.3 item 2): the
// spec, docs/contract-harness.md or docs/spec-readings.md. A clause that rests on a reading of our
// own cites its entry ([spec-readings <entry>]); one that cites nothing resolves through its rule's
// section.
func TestScenarioClausesResolveToPublicText(t *testing.T) {
	cat, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	p := loadPublicText(t)
	named := map[string][]string{}
	for _, sc := range cat.Scenarios {
		for _, id := range sc.Rules {
			cs := []Clause{}
			if c, ok := ClauseByID(id); ok {
				cs = append(cs, c)
			} else {
				cs = ClausesOf(id)
			}
			for _, c := range cs {
				named[c.ID] = append(named[c.ID], sc.ID)
			}
		}
	}
	ids := make([]string, 0, len(named))
	for id := range named {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		c, _ := ClauseByID(id)
		if bad := p.unresolved(c); len(bad) > 0 {
			t.Errorf("%s (named by %s, and %d more) cites %q, which no public text holds: cite a heading of the spec, a section of docs/contract-harness.md or [spec-readings <entry>]",
				id, named[id][0], len(named[id])-1, bad)
		}
	}
}

// The resolver fails what it should: a heading or entry that does not exist, a source of no known kind.
func TestPublicTextResolverFailsWhatNoDocumentHolds(t *testing.T) {
	p := loadPublicText(t)
	for _, c := range []struct {
		text string
		ok   bool
	}{
		{"x [facts §4.6]", true},
		{"x [§4.16, §5]", true},
		{"x [facts §4.99]", false},
		{"x [contract-harness §12]", true},
		{"x [contract-harness §99]", false},
		{"x [SU-01]", true}, // a pointer to another rule: the rule's section (§1.3) is the source
		{`x [runtime-protocol "Failures, retries and cleanup"]`, true},
		{"x [runtime-protocol.md, No Such Heading At All]", false},
		{"x [spec-readings bootstrap-error-retry-or-stop]", true},
		{"x [spec-readings no-such-entry]", false},
		{"x [our own idea]", false},
	} {
		got := len(p.unresolved(Clause{Rule: "CN-18", Text: c.text})) == 0
		if got != c.ok && !(c.ok == false && p.spec == "" && strings.Contains(c.text, "runtime-protocol")) {
			t.Errorf("%q resolves %v, want %v", c.text, got, c.ok)
		}
	}
}

// The rules W3.3 found enforced without a public statement are now stated or relaxed: after an
// unusable bootstrap answer no scenario demands a retry (CN-18.1 is a permission, cited to its
// reading); every device_shutdown sent to a Runtime is followed by the may_end that lets it close;
// AD-42's failed status may come inside the settle window; no configuration is refused for a
// negative max_concurrent_subagents.
func TestRulesTheIssueFoundUnstatedAreStatedOrRelaxed(t *testing.T) {
	cat, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := ClauseByID("CN-18.1"); c.Unobservable == "" || !strings.Contains(c.Text, "[spec-readings bootstrap-error-retry-or-stop]") {
		t.Errorf("CN-18.1 still demands a retry after a failed bootstrap: %+v", c)
	}
	for _, sc := range cat.Scenarios {
		if sc.BootstrapAnswer != nil && len(sc.BootstrapAnswer.Unusable) > 0 && sc.NamesClause("CN-18.1") {
			t.Errorf("%s names CN-18.1, a permission", sc.ID)
		}
		if sc.Tests == SideCore {
			continue
		}
		shutdown := false
		for _, st := range sc.Steps {
			if st.Kind == StepCore && st.Frame != nil && st.Frame.Type == proto.TypeDeviceShutdown {
				shutdown = true
			}
			if st.Kind == StepDisconnect && st.Close.MayEnd {
				shutdown = false
			}
			if st.Kind == StepSettle && sc.ID == "admission/start/cancel-during-native-start-is-failed-start-cancelled" {
				if len(st.Allow) == 0 || st.Allow[0].Frame.Type != proto.TypePreparationStatus {
					t.Errorf("%s: its settle step does not allow the failed start_cancelled status (%s)", sc.ID, st.Pos)
				}
				break
			}
		}
		if shutdown {
			t.Errorf("%s sends device_shutdown to a Runtime and no later step lets it end its transport (disconnect: {by: runtime, may_end: true})", sc.ID)
		}
	}
	if sc, ok := cat.Get("admission/configuration/shape-violations-are-invalid-request"); !ok {
		t.Error("no admission/configuration/shape-violations-are-invalid-request")
	} else {
		for _, st := range sc.Steps {
			if st.Frame != nil && strings.Contains(st.Frame.Invalid, "max_concurrent_subagents") {
				t.Errorf("%s: a step still refuses a max_concurrent_subagents (%s)", sc.ID, st.Pos)
			}
		}
	}
}

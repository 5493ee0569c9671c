package proto_test

// Reflective tests: every case here is derived from the payload types and their `wire` tags, so a
// member added to proto is checked without anyone writing a test for it, and a member added
// without a decision (or without a fixture that sets it) fails.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/proto/internal/wirefixtures"
	"github.com/wirecheck/wirecheck/proto/internal/wiretag"
)

var update = flag.Bool("update", false, "rewrite proto/testdata/members.golden from the payload types")

const membersGolden = "testdata/members.golden"

// Every member of every payload type (and HTTP body) has a wire decision, and no required member
// is omitempty: a required member must always be encoded.
func TestEveryMemberHasAWireDecision(t *testing.T) {
	roots := map[string]reflect.Type{}
	for _, s := range proto.Specs() {
		if s.PayloadType() != nil {
			roots[s.Type] = s.PayloadType()
		}
	}
	for _, b := range wiretag.Bodies() {
		roots["http/"+b.Name] = b.Type
	}
	for name, typ := range roots {
		if _, err := wiretag.Walk(typ); err != nil {
			t.Errorf("%s (%s):\n%v", name, typ.Name(), err)
		}
	}
}

// memberLines lists "<type> <path> <decision> <shape>" for every member path of every message
// type, in registry order, then the HTTP bodies.
func memberLines(t *testing.T) []string {
	t.Helper()
	var lines []string
	describe := func(name string, typ reflect.Type) {
		nodes, err := wiretag.Walk(typ)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, n := range nodes {
			lines = append(lines, fmt.Sprintf("%s %s %s %s", name, n.Path, n.Member.Decision, wiretag.Shape(n.Member.Type)))
			if wiretag.Indirect(n.Member.Type) == reflect.TypeFor[proto.AgentKindCapabilities]() {
				for _, c := range proto.CapabilityNames() {
					lines = append(lines, fmt.Sprintf("%s %s.%s req boolean", name, n.Path, c))
				}
			}
		}
	}
	for _, s := range proto.Specs() {
		if s.PayloadType() == nil {
			lines = append(lines, s.Type+" - none")
			continue
		}
		describe(s.Type, s.PayloadType())
	}
	for _, b := range wiretag.Bodies() {
		describe("http/"+b.Name, b.Type)
	}
	return lines
}

// The golden list of members and decisions: a member added, removed, renamed, retyped or
// re-decided shows up here as a diff that someone must accept with -update.
func TestMembersGolden(t *testing.T) {
	got := strings.Join(memberLines(t), "\n") + "\n"
	header := "# Every payload member path and its wire decision: <type> <path> <decision> <shape>.\n" +
		"# Generated; regenerate with: go test ./proto -run TestMembersGolden -update\n"
	if *update {
		if err := os.MkdirAll(filepath.Dir(membersGolden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(membersGolden, []byte(header+got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(membersGolden)
	if err != nil {
		t.Fatalf("%v (create it with: go test ./proto -run TestMembersGolden -update)", err)
	}
	want := strings.TrimPrefix(string(data), header)
	if diff := cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n")); diff != "" {
		t.Errorf("payload members differ from %s (-golden +code).\nDecide each change, then regenerate: go test ./proto -run TestMembersGolden -update\n%s", membersGolden, diff)
	}
}

// Every member of every type is set by some fixture, every array and map holds an element
// somewhere, both kinds of content part appear, and every registered type has a fixture.
func TestFixturesCoverEveryMember(t *testing.T) {
	_, gaps, err := wirefixtures.Mutations()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gaps {
		t.Errorf("fixture gap: %s (add it to proto/internal/wirefixtures)", g)
	}
	names := map[string]bool{}
	all := bytes.Buffer{}
	for _, f := range wirefixtures.Messages() {
		if names[f.Name] {
			t.Errorf("fixture %s is listed twice", f.Name)
		}
		names[f.Name] = true
		all.Write(f.Payload)
	}
	for _, kind := range []string{proto.ContentInputText, proto.ContentInputImage} {
		if !bytes.Contains(all.Bytes(), []byte(`"type":"`+kind+`"`)) {
			t.Errorf("no fixture has an %s content part", kind)
		}
	}
}

// proto.ParseFrame (shape and value rules) accepts every fixture as it is.
func TestFixturesParse(t *testing.T) {
	for _, f := range wirefixtures.Messages() {
		fr, err := proto.ParseFrame(f.Frame())
		if err != nil {
			t.Errorf("%s: %v\n%s", f.Name, err, f.Frame())
			continue
		}
		if fr.Spec.Type != f.Type {
			t.Errorf("%s: parsed as %s", f.Name, fr.Spec.Type)
		}
	}
}

// Every fixture decodes, encodes to the same JSON, and decodes again to an equal payload.
func TestFixturesRoundTrip(t *testing.T) {
	for _, f := range wirefixtures.Messages() {
		t.Run(f.Name, func(t *testing.T) {
			spec, _ := proto.Lookup(f.Type)
			if spec.PayloadType() == nil {
				return
			}
			first, err := spec.DecodePayload(f.Payload)
			if err != nil {
				t.Fatal(err)
			}
			encoded, err := json.Marshal(first)
			if err != nil {
				t.Fatal(err)
			}
			want := f.Payload
			if len(want) == 0 {
				want = json.RawMessage(`{}`)
			}
			if diff := cmp.Diff(generic(t, want), generic(t, encoded)); diff != "" {
				t.Errorf("re-encoded payload differs (-fixture +encoded):\n%s", diff)
			}
			second, err := spec.DecodePayload(encoded)
			if err != nil {
				t.Fatalf("re-encoded payload does not decode: %v\n%s", err, encoded)
			}
			if diff := cmp.Diff(first, second); diff != "" {
				t.Errorf("decoding the re-encoded payload differs (-first +second):\n%s", diff)
			}
		})
	}
}

// The shape layer does what the tags say, for every member path of every type: omitted, null, a
// value of the wrong JSON type, out of range, an unknown or case-folded sibling, and the elements
// of arrays and maps. Subtests are named <type>/<path>/<case>.
func TestShapeFollowsWireTags(t *testing.T) {
	muts, _, err := wirefixtures.Mutations()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range muts {
		name := m.Fixture.Type + "/" + m.Path + "/" + m.Case
		if seen[name] {
			t.Errorf("two cases are named %s", name)
		}
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			spec, _ := proto.Lookup(m.Fixture.Type)
			got, err := spec.DecodePayload(m.Payload)
			if m.Err == "" {
				if err != nil {
					t.Fatalf("DecodePayload(%s) = %v, want accepted", m.Payload, err)
				}
				if m.Unchanged {
					want, err := spec.DecodePayload(m.Fixture.Payload)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("an unknown member changed the decoded payload (-fixture +changed):\n%s", diff)
					}
				}
				return
			}
			if err == nil || err.Error() != m.Err {
				t.Fatalf("DecodePayload(%s)\n got %v\nwant %s", m.Payload, err, m.Err)
			}
			if _, err := proto.ParseFrame(m.Frame()); err == nil || err.Error() != m.Err {
				t.Fatalf("ParseFrame(%s)\n got %v\nwant %s", m.Frame(), err, m.Err)
			}
		})
	}
	t.Logf("%d shape cases", len(muts))
}

func generic(t *testing.T, raw []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return v
}

// Every HTTP body fixture sets every member of its type, decodes, passes its validator when it has
// one, and encodes back to the same JSON.
func TestBodiesRoundTrip(t *testing.T) {
	types := map[string]reflect.Type{}
	for _, b := range wiretag.Bodies() {
		types[b.Name] = b.Type
	}
	for _, b := range wirefixtures.Bodies() {
		t.Run(b.Name, func(t *testing.T) {
			typ, ok := types[b.Name]
			if !ok {
				t.Fatalf("no body type named %s", b.Name)
			}
			fields, _ := generic(t, b.Value).(map[string]any)
			members, _ := wiretag.Members(typ)
			for _, m := range members {
				if _, ok := fields[m.Name]; !ok {
					t.Errorf("the fixture does not set %s", m.Name)
				}
			}
			v := reflect.New(typ).Interface()
			if err := json.Unmarshal(b.Value, v); err != nil {
				t.Fatal(err)
			}
			if val, ok := v.(proto.Validator); ok {
				if err := val.Validate(); err != nil {
					t.Fatal(err)
				}
			}
			encoded, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(generic(t, b.Value), generic(t, encoded)); diff != "" {
				t.Errorf("re-encoded body differs (-fixture +encoded):\n%s", diff)
			}
		})
	}
	if len(wirefixtures.Bodies()) != len(types) {
		t.Errorf("%d body fixtures for %d body types", len(wirefixtures.Bodies()), len(types))
	}
}

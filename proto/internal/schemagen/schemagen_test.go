package schemagen_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/proto/internal/schemagen"
	"github.com/wirecheck/wirecheck/proto/internal/wirefixtures"
)

// committed is the schema directory at the repository root.
const committed = "../../../schema"

// The committed schemas are exactly what the generator produces from the Go types today.
func TestCommittedSchemasAreCurrent(t *testing.T) {
	files, err := schemagen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(committed)
	if err != nil {
		t.Fatalf("%v: generate the schemas with: %s", err, schemagen.Regenerate)
	}
	onDisk := map[string]bool{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") { // embed.go makes the directory a package
			onDisk[e.Name()] = true
		}
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(committed, name))
		if err != nil {
			t.Errorf("schema/%s is missing: regenerate with: %s", name, schemagen.Regenerate)
			continue
		}
		if !bytes.Equal(data, files[name]) {
			diff := cmp.Diff(strings.Split(string(data), "\n"), strings.Split(string(files[name]), "\n"))
			t.Errorf("schema/%s is stale (-committed +generated); regenerate with: %s\n%s", name, schemagen.Regenerate, diff)
		}
		delete(onDisk, name)
	}
	for name := range onDisk {
		t.Errorf("schema/%s is not generated any more: remove it, or regenerate with: %s", name, schemagen.Regenerate)
	}
}

// compile compiles every generated document, asserting formats and content (base64).
func compile(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	files, err := schemagen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.AssertContent()
	for name, data := range files {
		if !strings.HasSuffix(name, ".json") || name == "index.json" {
			continue
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := c.AddResource(schemagen.BaseURI+name, doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	out := map[string]*jsonschema.Schema{}
	for name := range files {
		if !strings.HasSuffix(name, ".json") || name == "index.json" {
			continue
		}
		s, err := c.Compile(schemagen.BaseURI + name)
		if err != nil {
			t.Fatalf("%s does not compile: %v", name, err)
		}
		out[strings.TrimSuffix(name, ".json")] = s
	}
	return out
}

func instance(t *testing.T, data []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	return v
}

// One schema per registered message type, plus the HTTP bodies, and the index lists every type
// with its sender.
func TestEveryTypeHasASchema(t *testing.T) {
	schemas := compile(t)
	for _, s := range proto.Specs() {
		if schemas[s.Type] == nil {
			t.Errorf("no schema for %s", s.Type)
		}
	}
	for _, b := range wirefixtures.Bodies() {
		if schemas[b.Name] == nil {
			t.Errorf("no schema for the %s body", b.Name)
		}
	}
	files, _ := schemagen.Generate()
	var index struct {
		Messages []struct{ Type, From, Schema string } `json:"messages"`
	}
	if err := json.Unmarshal(files["index.json"], &index); err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, m := range index.Messages {
		got = append(got, m.Type+" "+m.From+" "+m.Schema)
	}
	for _, s := range proto.Specs() {
		want = append(want, s.Type+" "+string(s.From)+" "+s.Type+".json")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("index.json (-registry +index):\n%s", diff)
	}
	if !strings.HasPrefix(string(files["README.md"]), "These JSON Schemas (draft 2020-12) are the shape layer of the wire; the Go validators in package `proto` are the authority for value rules.") {
		t.Errorf("README.md does not open with the shape-layer disclaimer")
	}
	t.Logf("%d schemas", len(schemas))
}

// Every valid fixture frame, and every valid HTTP body, validates against its schema.
func TestFixturesValidate(t *testing.T) {
	schemas := compile(t)
	for _, f := range wirefixtures.Messages() {
		if err := schemas[f.Type].Validate(instance(t, f.Frame())); err != nil {
			t.Errorf("%s: %v\n%s", f.Name, err, f.Frame())
		}
	}
	for _, b := range wirefixtures.Bodies() {
		if err := schemas[b.Name].Validate(instance(t, b.Value)); err != nil {
			t.Errorf("%s: %v\n%s", b.Name, err, b.Value)
		}
	}
}

// The schemas and proto's shape layer agree on every generated mutation of every fixture: a
// missing required member, null where null means nothing, a wrong JSON type, an out-of-range
// number, bad base64, an unknown member of a strict type (rejected) or of a lenient one (ignored),
// the capability and content-part rules.
func TestSchemasAgreeWithShapeLayer(t *testing.T) {
	schemas := compile(t)
	muts, _, err := wirefixtures.Mutations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range muts {
		t.Run(m.Fixture.Type+"/"+m.Path+"/"+m.Case, func(t *testing.T) {
			err := schemas[m.Fixture.Type].Validate(instance(t, m.Frame()))
			switch {
			case m.Err == "" && err != nil:
				t.Fatalf("proto accepts this frame but the schema rejects it: %v\n%s", err, m.Frame())
			case m.Err != "" && err == nil:
				t.Fatalf("proto rejects this frame (%s) but the schema accepts it:\n%s", m.Err, m.Frame())
			}
		})
	}
}

// The envelope: the id rule of each type, an absent payload, unknown envelope members. The schema
// must accept exactly what proto.ParseFrame accepts for these frames.
func TestSchemasAgreeOnTheEnvelope(t *testing.T) {
	schemas := compile(t)
	for _, s := range proto.Specs() {
		base := wirefixtures.ForType(s.Type)[0]
		with := func(id string) wirefixtures.Fixture { f := base; f.ID = id; return f }
		frames := map[string][]byte{
			"unknown-envelope-member": bytes.Replace(base.Frame(), []byte(`{`), []byte(`{"assignment":{"epoch":1},`), 1),
			"no-payload":              wirefixtures.Fixture{Type: s.Type, ID: base.ID}.Frame(),
			"null-payload":            bytes.Replace(wirefixtures.Fixture{Type: s.Type, ID: base.ID}.Frame(), []byte(`}`), []byte(`,"payload":null}`), 1),
			"id-absent":               with("").Frame(),
			"id-blank":                with(" ").Frame(),
			"id-text":                 with("an-id").Frame(),
			"id-nil-uuid":             with(proto.NilUUID).Frame(),
			"id-upper-uuid":           with(strings.ToUpper(wirefixtures.TransferID)).Frame(),
			"id-128-bytes":            with(strings.Repeat("a", proto.CorrelationIDMaxBytes)).Frame(),
			"id-129-bytes":            with(strings.Repeat("a", proto.CorrelationIDMaxBytes+1)).Frame(),
			"id-uuid":                 with(wirefixtures.TransferID).Frame(),
			"id-number":               bytes.Replace(with("").Frame(), []byte(`{`), []byte(`{"id":7,`), 1),
			"trace":                   bytes.Replace(base.Frame(), []byte(`{`), []byte(`{"trace":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",`), 1),
		}
		for name, frame := range frames {
			t.Run(s.Type+"/"+name, func(t *testing.T) {
				_, perr := proto.ParseFrame(frame)
				serr := schemas[s.Type].Validate(instance(t, frame))
				if (perr == nil) != (serr == nil) {
					t.Fatalf("ParseFrame: %v\nschema: %v\n%s", perr, serr, frame)
				}
			})
		}
	}
}

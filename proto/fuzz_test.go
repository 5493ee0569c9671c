package proto_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wirecheck/wirecheck/proto"
)

// Fuzz targets for the three decoders. Seeds: one real frame per message type plus every frame of
// the rule tables (valid and invalid) that is small enough to mutate. The committed corpus under
// testdata/fuzz/<FuzzName>/ holds the same real frames and the inputs the fuzzer found; any input
// that once failed stays there as a regression seed.
//
//	go test -run '^$' -fuzz '^FuzzParseFrame$' -fuzztime 60s ./proto
//	go test ./proto -run '^TestFuzzSeedCorpus$' -update-fuzz-seeds   # rewrite the committed real frames

var updateFuzzSeeds = flag.Bool("update-fuzz-seeds", false, "rewrite the committed seed frames under testdata/fuzz")

// maxSeedBytes keeps mutation fast: a 64 KiB chunk frame is in, the 1–4 MiB bound probes are out.
const maxSeedBytes = 100 << 10

// frameSeeds is every real frame the tests know, deduplicated, in a stable order.
func frameSeeds() []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if len(s) <= maxSeedBytes && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	base := baseFrames()
	for _, typ := range sortedKeys(base) {
		add(base[typ])
	}
	for _, c := range allRuleCases() {
		add(c.frame)
	}
	return out
}

// capabilitySeeds are capability objects: the fixture, whitespace variants, and each rejection.
func capabilitySeeds() []string {
	fixture, _ := json.Marshal(proto.MustDeclareCapabilities("streaming", "preparation"))
	all, _ := json.Marshal(proto.MustDeclareCapabilities(proto.CapabilityNames()...))
	s := string(fixture)
	return []string{
		s, string(all),
		strings.ReplaceAll(strings.ReplaceAll(s, ":", " : "), ",", " ,\n"),
		strings.Replace(s, `"usage":false,`, ``, 1),
		strings.Replace(s, `"usage":false`, `"usage":null`, 1),
		strings.Replace(s, `"usage":false`, `"usage":0`, 1),
		strings.Replace(s, `"usage":false`, `"usage":"true"`, 1),
		strings.Replace(s, `{`, `{"future_private_value":false,`, 1),
		strings.Replace(s, `{`, `{"Streaming":true,`, 1),
		strings.Replace(s, `"usage":false`, `"usage":false,"usage":true`, 1),
		`{}`, `null`, `[]`, `"x"`, ``, `{"streaming":true}`,
	}
}

func FuzzParseFrame(f *testing.F) {
	for _, s := range frameSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := proto.ParseFrame(data)
		// The same bytes always get the same verdict, word for word.
		_, again := proto.ParseFrame(data)
		if errText(err) != errText(again) {
			t.Fatalf("two parses of %q disagree:\n%v\n%v", data, err, again)
		}
		if err != nil {
			var re *proto.RuleError
			if !errors.As(err, &re) || !errors.Is(err, proto.ErrInvalid) {
				t.Fatalf("error %v (%T) is not a *RuleError", err, err)
			}
			if re.Type == "" {
				t.Fatalf("error %q names no message type (or envelope)", err)
			}
			return
		}
		checkReencodes(t, data, fr)
	})
}

// checkReencodes is the round-trip property: an accepted frame, rebuilt with NewEnvelope from its
// type, id and decoded payload, is accepted again with an equal payload.
func checkReencodes(t *testing.T, data []byte, fr *proto.Frame) {
	t.Helper()
	show := clip(string(data))
	var payload any
	if fr.Payload != nil {
		payload = fr.Payload
	}
	env, err := proto.NewEnvelope(fr.Type, fr.ID, payload)
	if err != nil {
		t.Fatalf("accepted frame %q does not re-encode: %v", show, err)
	}
	raw, err := env.Encode()
	if err != nil {
		t.Fatalf("accepted frame %q: envelope does not encode: %v", show, err)
	}
	back, err := proto.ParseFrame(raw)
	if err != nil {
		// Narrowed: the size bounds count encoded bytes, and encoding/json may write more bytes
		// than the peer did for the same value (it escapes <, > and &, U+2028 and U+2029, and
		// spells invalid UTF-8 as U+FFFD). A frame right at a bound can therefore re-encode past
		// it. That is a property of the encoder, not a lost value; anything else is a failure.
		var re *proto.RuleError
		if errors.As(err, &re) && strings.Contains(re.Rule, "must be at most") && (re.Path == "payload" || re.Type == "envelope") &&
			(len(env.Payload) > len(fr.Envelope.Payload) || len(raw) > len(data)) {
			return
		}
		t.Fatalf("accepted frame %q re-encodes to %q, which is rejected: %v", show, clip(string(raw)), err)
	}
	if back.Type != fr.Type || back.ID != fr.ID || back.RunID() != fr.RunID() {
		t.Fatalf("accepted frame %q re-encodes to %q: type/id %q/%q became %q/%q", show, clip(string(raw)), fr.Type, fr.ID, back.Type, back.ID)
	}
	if diff := cmp.Diff(fr.Payload, back.Payload, payloadEquality...); diff != "" {
		t.Fatalf("accepted frame %q re-encodes to %q with a different payload (-first +second):\n%s", show, clip(string(raw)), diff)
	}
}

// payloadEquality compares decoded payloads by meaning:
//   - a raw JSON member (agent_options, schema, arguments, ...) compares as JSON: json.Marshal
//     compacts it and escapes HTML characters, which changes its bytes but not its value;
//   - an empty list or map equals an absent one, because `omitempty` members encode [] and {} as
//     absent and the spec gives them the same meaning — except where [] and null/absent differ
//     on the wire: mcp_http_servers ([] = explicitly no servers) and allowed_tools.
var payloadEquality = []cmp.Option{
	cmp.FilterPath(isRawJSON, cmp.Comparer(jsonEqual)),
	// Bytes compare as a whole (nil and empty alike): element by element, a 1 MiB read costs seconds.
	cmp.FilterPath(isBytes, cmp.Comparer(bytes.Equal)),
	cmp.FilterPath(func(p cmp.Path) bool {
		if isRawJSON(p) || isBytes(p) {
			return false
		}
		sf, ok := p.Last().(cmp.StructField)
		return !ok || (sf.Name() != "MCPHTTPServers" && sf.Name() != "AllowedTools")
	}, cmpopts.EquateEmpty()),
}

var rawJSONType = reflect.TypeFor[json.RawMessage]()

func isRawJSON(p cmp.Path) bool { return p.Last().Type() == rawJSONType }
func isBytes(p cmp.Path) bool   { return p.Last().Type() == reflect.TypeFor[[]byte]() }

// jsonEqual compares two raw JSON values by meaning (numbers by their literal text).
func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	va, errA := decodeJSONValue(a)
	vb, errB := decodeJSONValue(b)
	if errA != nil || errB != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(va, vb)
}

func decodeJSONValue(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func FuzzDecodeEnvelope(f *testing.F) {
	for _, s := range frameSeeds() {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"type":"done","trace":7}`, `{"type":null}`, `{"Type":"done"}`, `{"type":"x","payload":[]}`, `[]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := proto.DecodeEnvelope(data)
		if err != nil {
			var re *proto.RuleError
			if !errors.As(err, &re) || re.Type == "" {
				t.Fatalf("error %v (%T) is not a *RuleError naming the envelope or type", err, err)
			}
			return
		}
		if env.Type == "" {
			t.Fatalf("%q decoded with an empty type", data)
		}
		if env.Payload != nil && env.Payload[0] != '{' {
			t.Fatalf("%q decoded with a payload that is not an object: %s", data, env.Payload)
		}
		raw, err := env.Encode()
		if err != nil {
			t.Fatalf("%q: decoded envelope does not encode: %v", data, err)
		}
		back, err := proto.DecodeEnvelope(raw)
		if err != nil {
			t.Fatalf("%q re-encodes to %q, which does not decode: %v", data, raw, err)
		}
		if back.Type != env.Type || back.ID != env.ID || back.Trace != env.Trace || !jsonEqual(back.Payload, env.Payload) {
			t.Fatalf("%q re-encodes to %q, which decodes differently:\n%+v\n%+v", data, raw, env, back)
		}
	})
}

// capabilityErrors is every message AgentKindCapabilities.UnmarshalJSON may return: all built from
// our own field names, so none can echo a key or a value the peer sent.
func capabilityErrors() map[string]bool {
	out := map[string]bool{
		"capability object is required":          true,
		"must be a JSON object":                  true,
		"has an unknown member (names withheld)": true,
	}
	for _, name := range proto.CapabilityNames() {
		out[name+": is required: every capability must be present, including false"] = true
		out[name+": must be true or false"] = true
	}
	return out
}

func FuzzCapabilities(f *testing.F) {
	for _, s := range capabilitySeeds() {
		f.Add([]byte(s))
	}
	allowed := capabilityErrors()
	f.Fuzz(func(t *testing.T, data []byte) {
		var c proto.AgentKindCapabilities
		err := c.UnmarshalJSON(data)
		if err != nil {
			if !allowed[err.Error()] {
				t.Fatalf("%q: error %q is not one of the fixed messages", data, err)
			}
			return
		}
		// An independent reading: exactly the 30 names, each true or false (the last duplicate wins,
		// as in encoding/json).
		var members map[string]json.RawMessage
		if err := json.Unmarshal(data, &members); err != nil {
			t.Fatalf("%q accepted but is not a JSON object: %v", data, err)
		}
		if len(members) != 30 {
			t.Fatalf("%q accepted with %d members", data, len(members))
		}
		for _, name := range proto.CapabilityNames() {
			v := string(bytes.TrimSpace(members[name]))
			if v != "true" && v != "false" {
				t.Fatalf("%q accepted with %s = %s", data, name, members[name])
			}
			if got, _ := c.Get(name); got != proto.Support(v == "true") {
				t.Fatalf("%q: %s decoded as %v from %s", data, name, got, v)
			}
		}
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("%q decoded but does not re-encode: %v", data, err)
		}
		var back proto.AgentKindCapabilities
		if err := back.UnmarshalJSON(raw); err != nil {
			t.Fatalf("%q re-encodes to %s, which does not decode: %v", data, raw, err)
		}
		if back != c {
			t.Fatalf("%q re-encodes to %s with different booleans", data, raw)
		}
	})
}

// The committed corpus holds a file for every real seed frame, so a fuzz run from a fresh clone
// starts from real frames of every type. -update-fuzz-seeds rewrites them.
func TestFuzzSeedCorpus(t *testing.T) {
	targets := map[string][]string{
		"FuzzParseFrame":     frameSeeds(),
		"FuzzDecodeEnvelope": frameSeeds(),
		"FuzzCapabilities":   capabilitySeeds(),
	}
	base := baseFrames()
	for _, target := range sortedKeys(targets) {
		dir := filepath.Join("testdata", "fuzz", target)
		for _, seed := range targets[target] {
			// Only the base frames (one per type) and the capability seeds are committed as
			// files; the rule-table frames are seeded by f.Add and need no copy on disk.
			if target != "FuzzCapabilities" && !isBaseFrame(base, seed) {
				continue
			}
			name := filepath.Join(dir, "seed-"+seedName(seed))
			want := corpusFile(seed)
			if *updateFuzzSeeds {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(name, want, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(name)
			if err != nil {
				t.Errorf("%v (run with -update-fuzz-seeds)", err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is stale (run with -update-fuzz-seeds)", name)
			}
		}
	}
}

func isBaseFrame(base map[string]string, s string) bool {
	for _, f := range base {
		if f == s {
			return true
		}
	}
	return false
}

// seedName names a seed file after its message type and content.
func seedName(s string) string {
	typ := "capabilities"
	if env, err := proto.DecodeEnvelope([]byte(s)); err == nil && strings.HasPrefix(s, `{"type"`) {
		typ = env.Type
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%s-%x", typ, sum[:6])
}

// corpusFile renders one []byte input in the `go test fuzz v1` corpus format.
func corpusFile(s string) []byte {
	return []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Every rule-table frame that ParseFrame accepts also satisfies the round-trip property, without
// waiting for the fuzzer.
func TestAcceptedRuleFramesReencode(t *testing.T) {
	for _, c := range allRuleCases() {
		fr, err := proto.ParseFrame([]byte(c.frame))
		if err != nil {
			continue
		}
		checkReencodes(t, []byte(c.frame), fr)
	}
}

// The one narrowing of the re-encode property, shown: a workspace_read within its 8 KiB bound
// whose path is 4000 '<' re-encodes (encoding/json writes each as \u003c) to a 24 KiB payload,
// which proto rightly rejects. A sender that builds frames with NewEnvelope must keep escaping in
// mind near a bound; the value itself survives.
func TestReencodeCanGrowPastABound(t *testing.T) {
	data := []byte(frame("workspace_read", "read-1", `{"handle":"h","environment_id":"e","path":"`+strings.Repeat("<", 4000)+`","max_bytes":1}`))
	fr, err := proto.ParseFrame(data)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := proto.MustEnvelope(fr.Type, fr.ID, fr.Payload).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := proto.ParseFrame(raw); errText(err) != "workspace_read.payload: must be at most 8192 bytes" {
		t.Errorf("re-encoded frame of %d bytes: %v", len(raw), err)
	}
	checkReencodes(t, data, fr) // skipped by the narrowing, not failed
}

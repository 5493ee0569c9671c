package journal_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/scenarios"
)

// sample is a small failed run: two connections, a clock move, a fault, a frame that is not an
// envelope, a daemon that was killed.
func sample() *scenarios.Result {
	return &scenarios.Result{
		Scenario: "admission/prepare/passes", Title: "a prepare passes", Played: scenarios.SideCore,
		Verdict: scenarios.Fail, Seed: "s33d", Duration: 40 * time.Millisecond, Started: time.Date(2026, 12, 2, 11, 0, 0, 0, time.UTC),
		Transcript: []scenarios.Exchange{
			{At: 1 * time.Millisecond, Dir: scenarios.Event, Type: "started", Note: "the Runtime connected 3ms after it was launched"},
			{At: 2 * time.Millisecond, Dir: scenarios.Event, Type: "connected", Note: "device dev-1"},
			{At: 3 * time.Millisecond, Step: 1, Dir: scenarios.RuntimeToCore, Type: "heartbeat", Frame: `{"type":"heartbeat","payload":{"ts":1,"active_requests":0}}`},
			{At: 4 * time.Millisecond, Step: 1, Dir: scenarios.CoreToRuntime, Type: "prompt_cancel", Frame: `{"type":"prompt_cancel","id":"run-1","payload":{"delivery_id":"c"}}`},
			{At: 5 * time.Millisecond, Step: 2, Dir: scenarios.Event, Type: "advance", Note: "5m0s"},
			{At: 6 * time.Millisecond, Step: 2, Dir: scenarios.Event, Type: "fault", Note: "drop after 2 frames"},
			{At: 7 * time.Millisecond, Step: 2, Dir: scenarios.Event, Type: "closed", Note: "1006"},
			{At: 8 * time.Millisecond, Step: 3, Dir: scenarios.Event, Type: "connected", Note: "device dev-1"},
			{At: 9 * time.Millisecond, Step: 3, Dir: scenarios.RuntimeToCore, Type: "(not an envelope)", Frame: `<html>`},
		},
		Failure: &scenarios.Failure{Step: 3, StepDesc: "runtime done", Pos: scenarios.Pos{File: "x.yaml", Line: 12},
			Message: "frame is not JSON", Expected: map[string]any{"type": "done", "id": "run-1"}, Diff: "- a\n+ b",
			Bindings: map[string]string{"run": "run-1"}},
		Daemons: []scenarios.Daemon{{Exit: "killed by signal 9 (killed)", Code: -1, Killed: true}},
	}
}

var header = journal.Header{Wire: "0.11.0", Catalog: strings.Repeat("ab", 32), Seed: "s33d", Clock: "virtual",
	Tool: "wirecheck (test)", Started: "2026-12-02T11:00:00Z"}

func key(t testing.TB, seed byte) ed25519.PrivateKey {
	t.Helper()
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
}

func write(t testing.TB, k ed25519.PrivateKey) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := journal.Write(&b, header, sample(), k); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	data := write(t, key(t, 1))
	recs, err := journal.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	res := sample()
	if diff := cmp.Diff(res.Transcript, journal.Transcript(recs)); diff != "" {
		t.Errorf("transcript read back (-written +read):\n%s", diff)
	}
	var kinds []journal.Kind
	for _, r := range recs {
		kinds = append(kinds, r.Kind)
	}
	want := []journal.Kind{"header", "process", "connection", "frame", "frame", "clock", "fault", "connection", "connection", "frame", "exit", "assertion", "anchor"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	// Each fact's wall clock is the scenario's start plus its monotonic offset.
	if w, a := recs[1].Wall, recs[len(recs)-2].Wall; w != "2026-12-02T11:00:00.001Z" || a != "2026-12-02T11:00:00.04Z" {
		t.Errorf("wall clocks: first fact %q, assertion %q", w, a)
	}
	h := recs[0].Header
	if h.Format != journal.Format || h.Scenario != res.Scenario || h.Played != "core" || h.Clock != "virtual" || h.Catalog != header.Catalog {
		t.Errorf("header: %+v", h)
	}
	// Frames: generation, sequence per connection and direction, the validator's verdict.
	type frame struct {
		Conn, Seq int
		ID        string
		OK        bool
	}
	var frames []frame
	for _, r := range recs {
		if r.Frame != nil {
			frames = append(frames, frame{r.Frame.Conn, r.Frame.Seq, r.Frame.ID, r.Frame.Verdict == "ok"})
		}
	}
	if diff := cmp.Diff([]frame{{1, 1, "", true}, {1, 1, "run-1", true}, {2, 1, "", false}}, frames); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
	a := recs[len(recs)-2].Assertion
	if a.Verdict != "fail" || a.Step != 3 || a.File != "x.yaml" || a.Line != 12 || string(a.Expected) != `{"id":"run-1","type":"done"}` {
		t.Errorf("assertion: %+v", a)
	}
	if p := journal.Verify("j.jsonl", data, key(t, 1).Public().(ed25519.PublicKey)); len(p) > 0 {
		t.Errorf("an untouched journal: %v", p)
	}
	if p := journal.Verify("j.jsonl", write(t, nil), nil); len(p) > 0 {
		t.Errorf("an untouched unsigned journal: %v", p)
	}
}

// The records Write returns (what the reports render) are the records a reader decodes.
func TestWriteReturnsTheRecordsAsRead(t *testing.T) {
	var b bytes.Buffer
	written, err := journal.Write(&b, header, sample(), key(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	read, err := journal.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(read, written); diff != "" {
		t.Errorf("records (-read +written):\n%s", diff)
	}
}

func TestDeterministic(t *testing.T) {
	if a, b := write(t, key(t, 1)), write(t, key(t, 1)); !bytes.Equal(a, b) {
		t.Error("the same run and key wrote two different journals")
	}
}

// lines splits a journal into its lines, each without its newline.
func lines(data []byte) [][]byte {
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

func join(ls [][]byte) []byte { return append(bytes.Join(ls, []byte("\n")), '\n') }

// edit changes record i's JSON with f and writes it back compactly.
func edit(t *testing.T, data []byte, i int, f func(map[string]any)) []byte {
	t.Helper()
	ls := lines(data)
	var m map[string]any
	if err := json.Unmarshal(ls[i], &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	ls[i] = out
	return join(ls)
}

func TestTampering(t *testing.T) {
	signer := key(t, 1)
	pub := signer.Public().(ed25519.PublicKey)
	good := write(t, signer)
	n := len(lines(good))
	for _, c := range []struct {
		name   string
		data   []byte
		pub    ed25519.PublicKey
		kind   journal.ProblemKind
		record int
		msg    string
	}{
		{"an edited record", edit(t, good, 4, func(m map[string]any) { m["frame"].(map[string]any)["id"] = "run-2" }), pub,
			journal.Edited, 4, "record 4: was edited: its line hashes to"},
		{"the last record before the anchor edited", edit(t, good, n-2, func(m map[string]any) { m["assertion"].(map[string]any)["verdict"] = "pass" }), pub,
			journal.Edited, n - 2, "was edited"},
		{"a dropped record", join(append(lines(good)[:3:3], lines(good)[4:]...)), pub,
			journal.Dropped, 3, "record 3: record 3 is missing: line 4 holds record 4 right after record 2"},
		{"two dropped records", join(append(lines(good)[:3:3], lines(good)[5:]...)), pub,
			journal.Dropped, 3, "records 3 to 4 are missing"},
		{"a truncated tail (whole records)", join(lines(good)[:n-3]), pub,
			journal.Truncated, n - 4, "truncated tail: the journal ends at record 9 without its anchor"},
		{"a truncated tail (in a record)", good[:len(good)-20], pub,
			journal.Truncated, n - 1, "truncated tail: line 13 is cut off in the middle of a record"},
		{"a record appended after the anchor", join(append(lines(good), lines(good)[3])), pub,
			journal.Malformed, n - 1, "the anchor is on line 13 but 1 more lines follow it"},
		{"an anchor claiming fewer records", edit(t, good, n-1, func(m map[string]any) { m["anchor"].(map[string]any)["records"] = 5.0 }), pub,
			journal.Tampered, n - 1, "the anchor was tampered with: it claims 5 records"},
		{"an anchor with another head and prev", edit(t, good, n-1, func(m map[string]any) {
			h := strings.Repeat("0", 64)
			m["prev"], m["anchor"].(map[string]any)["head"] = h, h
		}), pub, journal.Tampered, n - 1, "the anchor was tampered with: its signature does not verify"},
		{"an anchor re-signed by another key claiming the verifier's", resign(t, good, key(t, 2), journal.KeyID(pub)), pub,
			journal.Tampered, n - 1, "its signature does not verify"},
		{"a wrong key", good, key(t, 3).Public().(ed25519.PublicKey),
			journal.WrongKey, n - 1, "the anchor is signed by key " + journal.KeyID(pub) + ", not by the given key"},
		{"an unsigned anchor where a key is expected", write(t, nil), pub,
			journal.Unsigned, n - 1, "the anchor is not signed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			probs := journal.Verify("journals/x.jsonl", c.data, c.pub)
			if len(probs) != 1 && !(strings.HasPrefix(c.name, "a record appended") && len(probs) == 2) {
				t.Fatalf("want one problem, got %d: %v", len(probs), probs)
			}
			p := probs[0]
			if p.Kind != c.kind || p.Record != c.record || !strings.Contains(p.Error(), c.msg) || !strings.HasPrefix(p.Error(), "journals/x.jsonl: ") {
				t.Errorf("got %s %q (record %d); want %s record %d containing %q", p.Kind, p.Error(), p.Record, c.kind, c.record, c.msg)
			}
		})
	}
}

// resign replaces the anchor's signature with one by k, claiming keyID.
func resign(t *testing.T, data []byte, k ed25519.PrivateKey, keyID string) []byte {
	ls := lines(data)
	recs, err := journal.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	a := recs[len(recs)-1].Anchor
	return edit(t, join(ls), len(ls)-1, func(m map[string]any) {
		an := m["anchor"].(map[string]any)
		an["key_id"] = keyID
		an["sig"] = ed25519Sig(k, journal.AnchorMessage(a.Head, a.Records))
	})
}

func ed25519Sig(k ed25519.PrivateKey, msg []byte) string {
	b, _ := json.Marshal(ed25519.Sign(k, msg)) // []byte marshals as standard base64
	return strings.Trim(string(b), `"`)
}

func TestDecodeRecordRefuses(t *testing.T) {
	zero := strings.Repeat("0", 64)
	for line, want := range map[string]string{
		`{"n":1,"prev":"` + zero + `","kind":"frame"}`:                                "a frame record holds exactly its frame body",
		`{"n":1,"prev":"` + zero + `","kind":"frame","event":{"name":"x"}}`:           "a frame record holds exactly its frame body",
		`{"n":1,"prev":"` + zero + `","kind":"nope","event":{"name":"x"}}`:            `unknown kind "nope"`,
		`{"n":1,"prev":"abc","kind":"event","event":{"name":"x"}}`:                    "is not 64 lowercase hex",
		`{"n":1,"prev":"` + zero + `","kind":"event","event":{"name":"x"},"extra":1}`: `unknown field "extra"`,
		`{"n":1,"prev":"` + zero + `","kind":"event","event":{"name":"x"}} {}`:        "data after the record",
		`{"n":0,"prev":"` + zero + `","kind":"header","header":{"format":"other/9"}}`: "this verifier reads",
		`{"n":-1,"prev":"` + zero + `","kind":"event","event":{"name":"x"}}`:          "negative",
	} {
		if _, err := journal.DecodeRecord([]byte(line)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", line, err, want)
		}
	}
}

func TestKeys(t *testing.T) {
	priv, pub, err := journal.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	k, err := journal.ParsePrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := journal.ParsePublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Equal(k.Public()) {
		t.Error("the public key is not the private key's")
	}
	if _, err := journal.ParsePublicKey(priv); err == nil {
		t.Error("a private key was read as a public one")
	}
	if _, err := journal.ParsePrivateKey([]byte("ssh-ed25519 AAAA")); err == nil || !strings.Contains(err.Error(), "PRIVATE KEY") {
		t.Errorf("not PEM: %v", err)
	}
}

func FuzzDecodeRecord(f *testing.F) {
	for _, l := range lines(write(f, key(f, 1))) {
		f.Add(l)
	}
	f.Add([]byte(`{"n":1}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := journal.DecodeRecord(line)
		if err != nil {
			return
		}
		// A record that decodes encodes again and decodes to the same record.
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := journal.DecodeRecord(out)
		if err != nil {
			t.Fatalf("re-encoded %s: %v", out, err)
		}
		if diff := cmp.Diff(r, back); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

func FuzzVerify(f *testing.F) {
	good := write(f, key(f, 1))
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = journal.Verify("f.jsonl", data, key(t, 1).Public().(ed25519.PublicKey)) // never panics
	})
}

func BenchmarkWriter(b *testing.B) {
	res := sample()
	k := key(b, 1)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if _, err := journal.Write(&buf, header, res, k); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(res.Transcript)), "facts/op")
}

func TestRejudgeRevalidatesFramesAndFindsTheScenario(t *testing.T) {
	recs, err := journal.Read(bytes.NewReader(write(t, nil)))
	if err != nil {
		t.Fatal(err)
	}
	recs[3].Frame.Verdict = "heartbeat.ts: is required" // as an older validator might have said
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	got := journal.Rejudge(recs, cat)
	want := []journal.Difference{
		{Record: 3, What: `runtime→core heartbeat: the validator said "heartbeat.ts: is required", now says "ok"`},
		{Record: 11, What: "the scenario is no longer in the catalog"},
	}
	if diff := cmp.Diff(want, got.Differences); diff != "" {
		t.Errorf("differences (-want +got):\n%s", diff)
	}
	if got.Frames != 3 || got.Recorded != "fail" {
		t.Errorf("rejudged: %+v", got)
	}
}

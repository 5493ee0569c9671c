package reports_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reports"
)

func compileSchema() *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(reports.JSONSchema()))
	Expect(err).NotTo(HaveOccurred())
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	Expect(c.AddResource("report.schema.json", doc)).To(Succeed())
	s, err := c.Compile("report.schema.json")
	Expect(err).NotTo(HaveOccurred())
	return s
}

func instance(s string) any {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return v
}

type jsonDoc struct {
	SchemaVersion string `json:"schema_version"`
	OK            bool   `json:"ok"`
	ExitCode      int    `json:"exit_code"`
	ProfileLine   string `json:"profile_line"`
	Started       string `json:"started"`
	Summary       map[string]int
	Cases         []struct {
		ID, Family, Verdict, Outcome string
		KnownFailing                 bool `json:"known_failing"`
		Failure                      *struct {
			Step     int
			File     string
			Line     int
			Expected any
			Actual   any
			Diff     string
			Bindings map[string]string
			Missing  []string `json:"missing_capabilities"`
		}
		Transcript []struct {
			AtMS  float64 `json:"at_ms"`
			Dir   string
			Step  int
			Type  string
			Frame string
		}
	}
}

var _ = Describe("JSON", Label("json"), func() {
	var schema *jsonschema.Schema
	BeforeEach(func() { schema = compileSchema() })

	It("is the committed schema file", func() {
		committed, err := os.ReadFile("report.schema.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(reports.JSONSchema()).To(Equal(committed))
	})

	It("names exactly the protocol's capabilities in the schema", func() {
		var s struct {
			Defs map[string]struct {
				Enum []string `json:"enum"`
			} `json:"$defs"`
		}
		Expect(json.Unmarshal(reports.JSONSchema(), &s)).To(Succeed())
		Expect(s.Defs["capability"].Enum).To(Equal(proto.CapabilityNames()))
	})

	DescribeTable("validates against the schema",
		func(run func() *reports.Run) {
			out := render(reports.WriteJSON, run())
			Expect(schema.Validate(instance(out))).To(Succeed())
		},
		Entry("every outcome, built by hand", handRun),
		Entry("real results", realRun),
		Entry("both", mixedRun),
		Entry("an empty run with an unknown profile", func() *reports.Run { return &reports.Run{} }),
	)

	It("is not a rubber stamp: the schema rejects what the writer never writes", func() {
		out := render(reports.WriteJSON, handRun())
		for _, breakIt := range []func(map[string]any){
			func(m map[string]any) { m["schema_version"] = "2" },
			func(m map[string]any) { delete(m, "cases") },
			func(m map[string]any) { m["surprise"] = true },
			func(m map[string]any) { m["cases"].([]any)[0].(map[string]any)["verdict"] = "maybe" },
			func(m map[string]any) { m["profile"].(map[string]any)["supported"] = []any{"teleportation"} },
			func(m map[string]any) { m["started"] = "yesterday" },
		} {
			var m map[string]any
			Expect(json.Unmarshal([]byte(out), &m)).To(Succeed())
			breakIt(m)
			b, _ := json.Marshal(m)
			Expect(schema.Validate(instance(string(b)))).NotTo(Succeed(), string(b[:80]))
		}
	})

	It("carries the summary, the outcomes, the failure and the raw transcript", func() {
		var doc jsonDoc
		Expect(json.Unmarshal([]byte(render(reports.WriteJSON, handRun())), &doc)).To(Succeed())
		Expect(doc.SchemaVersion).To(Equal(reports.SchemaVersion))
		Expect(doc.OK).To(BeFalse())
		Expect(doc.ExitCode).To(Equal(1))
		Expect(doc.Started).To(Equal("2026-05-04T09:30:00Z"))
		Expect(doc.ProfileLine).To(Equal(handRun().ProfileLine()))
		Expect(doc.Summary).To(Equal(map[string]int{"total": 8, "applicable": 7, "pass": 2, "fail": 3, "inconclusive": 1,
			"not_applicable": 1, "harness_error": 1, "expected_failures": 1, "unexpected_passes": 1}))
		ids := []string{}
		outcomes := map[string]string{}
		for _, c := range doc.Cases {
			ids = append(ids, c.ID)
			outcomes[c.ID] = c.Outcome
		}
		Expect(ids).To(Equal([]string{"admission/prepare/hostile-frame", "admission/prepare/passes", "admission/prepare/wrong-revision",
			"cancellation/deadline-after-dispatch", "connection/daemon-never-started", "runs/known/fixed-meanwhile",
			"runs/known/still-broken", "runs/needs-steering"}), "sorted by id")
		Expect(outcomes).To(HaveKeyWithValue("runs/known/fixed-meanwhile", "unexpected_pass"))
		Expect(outcomes).To(HaveKeyWithValue("runs/known/still-broken", "expected_fail"))

		wrong := doc.Cases[2]
		Expect(wrong.Family).To(Equal("admission"))
		Expect(wrong.Failure.Step).To(Equal(3))
		Expect(wrong.Failure.File).To(Equal("catalog/admission/prepare.yaml"))
		Expect(wrong.Failure.Line).To(Equal(13))
		Expect(wrong.Failure.Expected).To(HaveKeyWithValue("payload", map[string]any{"revision": float64(2)}))
		Expect(wrong.Failure.Bindings).To(HaveKeyWithValue("handle", "handle-[REDACTED]"))
		Expect(wrong.Transcript).To(HaveLen(6))
		Expect(wrong.Transcript[5].AtMS).To(Equal(3.0))
		Expect(wrong.Transcript[5].Dir).To(Equal("runtime→core"))
		Expect(wrong.Transcript[5].Frame).To(HavePrefix(`{"type":"preparation_status","id":"prepare"`))

		hostileCase := doc.Cases[0]
		Expect(hostileCase.Failure.Actual).To(Equal(hostile), "bytes that are not JSON stay a string")
		Expect(hostileCase.Transcript[4].Frame).To(Equal(hostile+"\x00\x1b"), "frames are kept exactly as sent")
	})
})

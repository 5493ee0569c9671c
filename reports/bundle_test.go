package reports_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

var _ = Describe("the evidence bundle", Label("bundle"), func() {
	var dir string
	var run *reports.Run
	BeforeEach(func() {
		dir = filepath.Join(GinkgoT().TempDir(), "evidence")
		run = mixedRun()
		Expect(reports.WriteBundle(dir, run)).To(Succeed())
	})

	It("holds the four reports, the schema, one journal and one transcript per case and a manifest of them all", func() {
		var files []string
		Expect(filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				files = append(files, filepath.ToSlash(rel))
			}
			return err
		})).To(Succeed())
		Expect(files).To(ContainElements("manifest.json", "report.html", "report.json", "report.junit.xml", "report.md", "report.schema.json",
			"transcripts/admission__prepare__wrong-revision.jsonl", "transcripts/broken__garbage.jsonl",
			"transcripts/connection__credential__missing_scripted_core.jsonl", "transcripts/connection__credential__missing_scripted_runtime.jsonl",
			"journals/admission__prepare__wrong-revision.jsonl", "journals/broken__garbage.jsonl"))
		Expect(files).To(HaveLen(6 + 2*len(run.Cases)))

		var m reports.Manifest
		data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(data, &m)).To(Succeed())
		Expect(m.SchemaVersion).To(Equal(reports.SchemaVersion))
		Expect(m.OK).To(BeFalse())
		Expect(m.ProfileLine).To(Equal(run.ProfileLine()))
		var listed []string
		for _, f := range m.Files {
			listed = append(listed, f.Path)
			content, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
			Expect(err).NotTo(HaveOccurred())
			sum := sha256.Sum256(content)
			Expect(f.SHA256).To(Equal(hex.EncodeToString(sum[:])), f.Path)
			Expect(f.Bytes).To(Equal(len(content)))
		}
		Expect(sort.StringsAreSorted(listed)).To(BeTrue())
		Expect(append(listed, "manifest.json")).To(ConsistOf(files))

		schema, err := os.ReadFile(filepath.Join(dir, "report.schema.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(schema).To(Equal(reports.JSONSchema()))
		report, err := os.ReadFile(filepath.Join(dir, "report.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(compileSchema().Validate(instance(string(report)))).To(Succeed())
	})

	It("keeps each transcript as one JSON entry per line, frames exactly as sent", func() {
		for _, c := range []struct {
			file string
			res  *scenarios.Result
		}{
			{"admission__prepare__hostile-frame.jsonl", run.Cases[2].Result},
			{"broken__garbage.jsonl", realResults()[len(realResults())-1].Result},
		} {
			data, err := os.ReadFile(filepath.Join(dir, "transcripts", c.file))
			Expect(err).NotTo(HaveOccurred())
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 8<<20)
			i := 0
			for sc.Scan() {
				var e struct {
					AtMS  float64 `json:"at_ms"`
					Dir   string
					Step  int
					Type  string
					Frame string
					Note  string
				}
				Expect(json.Unmarshal(sc.Bytes(), &e)).To(Succeed())
				want := c.res.Transcript[i]
				Expect([]any{e.Dir, e.Step, e.Type, e.Note}).To(Equal([]any{string(want.Dir), want.Step, want.Type, want.Note}))
				Expect(e.Frame).To(Equal(strings.ReplaceAll(want.Frame, secret, "[REDACTED]")))
				i++
			}
			Expect(i).To(Equal(len(c.res.Transcript)), c.file)
		}
	})

	It("never mixes two runs: a directory with anything in it is refused", func() {
		Expect(reports.WriteBundle(dir, run)).To(MatchError(ContainSubstring("is not empty: a bundle never mixes two runs")))
		empty := filepath.Join(GinkgoT().TempDir(), "empty")
		Expect(os.Mkdir(empty, 0o755)).To(Succeed())
		Expect(reports.WriteBundle(empty, run)).To(Succeed())
	})

	It("names every case's file uniquely and safely", func() {
		odd := handRun()
		odd.Cases = []reports.Case{
			{Result: result("a/b", scenarios.Pass, nil, nil)},
			{Result: result("a/b", scenarios.Pass, nil, nil)},
			{Result: result("a__b", scenarios.Pass, nil, nil)},
			{Result: result("../../etc/passwd", scenarios.Pass, nil, nil)},
			{Result: result("..", scenarios.Pass, nil, nil)},
		}
		d := filepath.Join(GinkgoT().TempDir(), "odd")
		Expect(reports.WriteBundle(d, odd)).To(Succeed())
		entries, err := os.ReadDir(filepath.Join(d, "transcripts"))
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		Expect(names).To(ConsistOf("_.jsonl", "a__b.jsonl", "a__b_scripted_core.jsonl", "a__b_scripted_core_2.jsonl", "etc__passwd.jsonl"))
	})
})

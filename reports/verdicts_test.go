package reports_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

// details are the problems' lines.
func details(probs []journal.Problem) []string {
	var out []string
	for _, p := range probs {
		out = append(out, p.Error())
	}
	return out
}

// forge rewrites dir's report.json as a forger would: read, changed by edit, written again by
// WriteJSON, so everything it concludes follows from its (edited) cases; then manifest.json is
// given the new file's SHA-256 and size, as the forger can do without the key.
func forge(dir string, edit func(*reports.Run)) {
	data, err := os.ReadFile(filepath.Join(dir, reports.BundleJSON))
	Expect(err).NotTo(HaveOccurred())
	run, err := reports.ReadJSON(bytes.NewReader(data))
	Expect(err).NotTo(HaveOccurred())
	edit(run)
	var b bytes.Buffer
	Expect(reports.WriteJSON(&b, run)).To(Succeed())
	replaceRehashed(dir, reports.BundleJSON, b.Bytes(), func(m *reports.Manifest) { m.ProfileLine, m.OK = run.ProfileLine(), run.OK() })
}

// replaceRehashed writes file and gives it its new SHA-256 and size in manifest.json, edited too
// by the edits given.
func replaceRehashed(dir, file string, data []byte, edits ...func(*reports.Manifest)) {
	Expect(os.WriteFile(filepath.Join(dir, file), data, 0o644)).To(Succeed())
	mdata, err := os.ReadFile(filepath.Join(dir, reports.BundleManifest))
	Expect(err).NotTo(HaveOccurred())
	var m reports.Manifest
	Expect(json.Unmarshal(mdata, &m)).To(Succeed())
	for i, f := range m.Files {
		if f.Path == file {
			sum := sha256.Sum256(data)
			m.Files[i].SHA256, m.Files[i].Bytes = hex.EncodeToString(sum[:]), len(data)
		}
	}
	for _, edit := range edits {
		edit(&m)
	}
	out, err := json.MarshalIndent(m, "", "  ")
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(filepath.Join(dir, reports.BundleManifest), append(out, '\n'), 0o644)).To(Succeed())
}

// editJSON changes report.json as a generic JSON document, rehashed in the manifest.
func editJSON(dir string, edit func(map[string]any)) {
	data, err := os.ReadFile(filepath.Join(dir, reports.BundleJSON))
	Expect(err).NotTo(HaveOccurred())
	var doc map[string]any
	Expect(json.Unmarshal(data, &doc)).To(Succeed())
	edit(doc)
	out, err := json.MarshalIndent(doc, "", "  ")
	Expect(err).NotTo(HaveOccurred())
	replaceRehashed(dir, reports.BundleJSON, append(out, '\n'))
}

func resultOf(run *reports.Run, id string) *scenarios.Result {
	for _, c := range run.Cases {
		if c.Result.Scenario == id {
			return c.Result
		}
	}
	Fail("no case " + id)
	return nil
}

// wrongRevision is handRun's case that failed.
const wrongRevision = "admission/prepare/wrong-revision"

var _ = Describe("a bundle's report checked against its journals", Label("bundle"), func() {
	const failed = wrongRevision
	const failedJournal = "journals/admission__prepare__wrong-revision.jsonl"
	var dir string
	BeforeEach(func() {
		dir = filepath.Join(GinkgoT().TempDir(), "evidence")
		Expect(reports.WriteBundle(dir, handRun())).To(Succeed())
	})

	It("agrees as written, and reads back", func() {
		Expect(reports.CheckVerdicts(dir)).To(BeEmpty())
		_, err := reports.ReadBundle(dir)
		Expect(err).NotTo(HaveOccurred())
	})

	It("names the case and both verdicts when a forged report claims a pass its journal does not hold", func() {
		forge(dir, func(run *reports.Run) {
			res := resultOf(run, failed)
			res.Verdict, res.Failure = scenarios.Pass, nil
		})
		Expect(details(reports.CheckVerdicts(dir))).To(ContainElements(
			"report.json: case "+failed+" (played core): verdict pass, but its journal "+failedJournal+" records fail",
			ContainSubstring("report.json: the run's verdict is ok false, exit_code 1, profile_line "),
		))
		// The forged report is never carried into a new bundle.
		_, err := reports.ReadBundle(dir)
		Expect(err).To(MatchError(ContainSubstring("the report does not agree with the journals:\n" + filepath.Join(dir, "report.json") + ": case " + failed)))
	})

	It("recomputes the run's verdict from the journals: a forged certification is named", func() {
		forge(dir, func(run *reports.Run) {
			var cases []reports.Case
			for _, c := range run.Cases { // keep what certifies, claim a pass for the rest
				if c.Result.Verdict == scenarios.Fail || c.Result.Verdict == scenarios.Inconclusive || c.Result.Verdict == scenarios.HarnessError {
					c.Result.Verdict, c.Result.Failure = scenarios.Pass, nil
				}
				if c.Result.Verdict == scenarios.Pass && c.KnownFailing {
					c.KnownFailing = false
				}
				cases = append(cases, c)
			}
			run.Cases = cases
			Expect(run.OK()).To(BeTrue(), "the forgery certifies")
		})
		probs := details(reports.CheckVerdicts(dir))
		Expect(probs).To(ContainElement(MatchRegexp(`^report\.json: the run's verdict is ok true, exit_code 0, profile_line "profile: .* — CERTIFIED", but the journals' verdicts give ok false, exit_code 1, profile_line "profile: .* — NOT CERTIFIED: 3 failed, 1 inconclusive, 1 harness error"$`)))
	})

	It("names a verdict edited alone, even when the run's verdict still follows", func() {
		editJSON(dir, func(doc map[string]any) {
			for _, c := range doc["cases"].([]any) {
				if c := c.(map[string]any); c["id"] == "runs/needs-steering" {
					c["verdict"] = "fail" // not applicable → fail: the run is still not certified
				}
			}
		})
		Expect(details(reports.CheckVerdicts(dir))).To(ConsistOf(
			"report.json: case runs/needs-steering (played core): verdict fail, but its journal journals/runs__needs-steering.jsonl records not_applicable"))
	})

	It("names a profile its journals' heartbeats do not declare", func() {
		forge(dir, func(run *reports.Run) { run.Profile.Available = false })
		Expect(details(reports.CheckVerdicts(dir))).To(ContainElement(
			MatchRegexp(`^report\.json: profile is \{.*"available":false.*\}, but the first heartbeat in the journals declares \{.*"available":true.*\}$`)))
	})

	It("names a derived member edited alone, and a case's transcript that is not its journal's", func() {
		editJSON(dir, func(doc map[string]any) {
			doc["summary"].(map[string]any)["fail"] = 0.0
			for _, c := range doc["cases"].([]any) {
				if c := c.(map[string]any); c["id"] == failed {
					c["transcript"] = c["transcript"].([]any)[:1]
				}
			}
		})
		Expect(details(reports.CheckVerdicts(dir))).To(ConsistOf(
			"report.json: summary is not what the journals' verdicts give",
			"report.json: case "+failed+" (played core): transcript is not what its journal gives"))
	})

	It("names a case without a journal, and a journal without a case", func() {
		Expect(os.Rename(filepath.Join(dir, failedJournal), filepath.Join(GinkgoT().TempDir(), "gone"))).To(Succeed())
		extra := filepath.Join(dir, "journals", "extra.jsonl")
		var b bytes.Buffer
		_, err := journal.Write(&b, journal.Header{Seed: "x"}, &scenarios.Result{Scenario: "not/in/the/report", Played: scenarios.SideCore, Verdict: scenarios.Pass}, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(extra, b.Bytes(), 0o644)).To(Succeed())
		Expect(details(reports.CheckVerdicts(dir))).To(ConsistOf(
			"report.json: case "+failed+" (played core) has no journal in journals/ to check its verdict fail against",
			"journals/extra.jsonl: a journal of not/in/the/report (played core), which report.json does not hold"))
	})

	It("names a case whose journal records no verdict", func() {
		var b bytes.Buffer
		w, err := journal.NewWriter(&b, journal.Header{Scenario: failed, Played: "core", Seed: "x"})
		Expect(err).NotTo(HaveOccurred())
		Expect(w.Close(nil)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, failedJournal), b.Bytes(), 0o644)).To(Succeed())
		Expect(details(reports.CheckVerdicts(dir))).To(ContainElement(
			"report.json: case " + failed + " (played core): its journal " + failedJournal + " records no verdict (no assertion record) to check its verdict fail against"))
	})

	It("names a second journal of one case", func() {
		data, err := os.ReadFile(filepath.Join(dir, failedJournal))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dir, "journals", "zz-copy.jsonl"), data, 0o644)).To(Succeed())
		Expect(details(reports.CheckVerdicts(dir))).To(ConsistOf(
			"journals/zz-copy.jsonl: a second journal of " + failed + " (played core), after " + failedJournal))
	})
})

var _ = Describe("a signed bundle", Label("bundle"), func() {
	It("signs manifest.json's exact bytes with the key that signs the anchors", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "evidence")
		k := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
		pub := k.Public().(ed25519.PublicKey)
		Expect(reports.WriteSignedBundle(dir, handRun(), k)).To(Succeed())
		sigFile, err := os.ReadFile(filepath.Join(dir, journal.ManifestSigName))
		Expect(err).NotTo(HaveOccurred())
		sig, err := journal.DecodeManifestSig(sigFile)
		Expect(err).NotTo(HaveOccurred())
		Expect(sig.KeyID).To(Equal(journal.KeyID(pub)))
		check := journal.VerifyBundle(dir, pub)
		Expect(check.Problems).To(BeEmpty())
		Expect(check.ManifestKey).To(Equal(journal.KeyID(pub)))

		forge(dir, func(run *reports.Run) { resultOf(run, wrongRevision).Verdict = scenarios.Pass })
		Expect(details(journal.VerifyBundle(dir, pub).Problems)).To(ConsistOf(
			"manifest.json: was changed after it was signed: manifest.json.sig does not verify with the given key " + journal.KeyID(pub)))
	})

	It("is not signed without a key", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "evidence")
		Expect(reports.WriteBundle(dir, handRun())).To(Succeed())
		_, err := os.Stat(filepath.Join(dir, journal.ManifestSigName))
		Expect(os.IsNotExist(err)).To(BeTrue(), "%v", err)
		Expect(strings.Join(details(journal.VerifyBundle(dir, nil).Problems), "\n")).To(BeEmpty())
	})
})

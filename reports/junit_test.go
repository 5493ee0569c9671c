package reports_test

import (
	"encoding/xml"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/reports"
)

// The standard JUnit structure as Jenkins and GitLab read it, declared independently of the writer.
type jTestsuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []jTestsuite `xml:"testsuite"`
}

type jTestsuite struct {
	Name       string `xml:"name,attr"`
	Tests      int    `xml:"tests,attr"`
	Failures   int    `xml:"failures,attr"`
	Errors     int    `xml:"errors,attr"`
	Skipped    int    `xml:"skipped,attr"`
	Time       string `xml:"time,attr"`
	Timestamp  string `xml:"timestamp,attr"`
	Properties []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"properties>property"`
	Cases []jTestcase `xml:"testcase"`
}

type jTestcase struct {
	Classname string    `xml:"classname,attr"`
	Name      string    `xml:"name,attr"`
	Time      string    `xml:"time,attr"`
	Failure   *jProblem `xml:"failure"`
	Error     *jProblem `xml:"error"`
	Skipped   *jProblem `xml:"skipped"`
	SystemOut string    `xml:"system-out"`
}

type jProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

func parseJUnit(out string) jTestsuites {
	var doc jTestsuites
	ExpectWithOffset(1, xml.Unmarshal([]byte(out), &doc)).To(Succeed())
	return doc
}

func junitCase(doc jTestsuites, name string) jTestcase {
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Name == name {
				return c
			}
		}
	}
	Fail("no testcase " + name)
	return jTestcase{}
}

var _ = Describe("JUnit XML", Label("junit"), func() {
	It("has one testsuite per family and one testcase per case, with consistent counts", func() {
		out := render(reports.WriteJUnit, handRun())
		Expect(out).To(HavePrefix(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<testsuites"))
		doc := parseJUnit(out)
		names := []string{}
		tests, failures, errors, skipped := 0, 0, 0, 0
		for _, s := range doc.Suites {
			names = append(names, s.Name)
			Expect(s.Tests).To(Equal(len(s.Cases)))
			f, e, k := 0, 0, 0
			for _, c := range s.Cases {
				Expect(c.Classname).To(Equal(s.Name))
				Expect(strings.TrimPrefix(s.Name, "wirecheck.")).To(Equal(strings.Split(c.Name, "/")[0]))
				Expect(c.Time).To(MatchRegexp(`^\d+\.\d{3}$`))
				Expect(c.SystemOut).To(ContainSubstring("transcript:"))
				n := 0
				if c.Failure != nil {
					f, n = f+1, n+1
				}
				if c.Error != nil {
					e, n = e+1, n+1
				}
				if c.Skipped != nil {
					k, n = k+1, n+1
				}
				Expect(n).To(BeNumerically("<=", 1), c.Name)
			}
			Expect([]int{s.Failures, s.Errors, s.Skipped}).To(Equal([]int{f, e, k}), s.Name)
			Expect(s.Timestamp).To(Equal("2026-05-04T09:30:00"))
			Expect(s.Properties).To(ContainElement(HaveField("Name", "profile")))
			tests, failures, errors, skipped = tests+s.Tests, failures+f, errors+e, skipped+k
		}
		Expect(names).To(Equal([]string{"wirecheck.admission", "wirecheck.cancellation", "wirecheck.connection", "wirecheck.runs"}))
		Expect([]int{doc.Tests, doc.Failures, doc.Errors, doc.Skipped}).To(Equal([]int{tests, failures, errors, skipped}))
		Expect([]int{doc.Tests, doc.Failures, doc.Errors, doc.Skipped}).To(Equal([]int{8, 3, 1, 3}))
		Expect(doc.Time).To(Equal("0.100"))
	})

	It("maps every outcome to the element CI understands", func() {
		doc := parseJUnit(render(reports.WriteJUnit, handRun()))

		pass := junitCase(doc, "admission/prepare/passes")
		Expect([]any{pass.Failure, pass.Error, pass.Skipped}).To(HaveEach(BeNil()))

		fail := junitCase(doc, "admission/prepare/wrong-revision")
		Expect(fail.Failure).NotTo(BeNil())
		Expect(fail.Failure.Type).To(Equal("fail"))
		Expect(fail.Failure.Message).To(Equal("preparation_status payload.revision: want 2, got 3 (step 3, catalog/admission/prepare.yaml:13)"))
		Expect(fail.Failure.Body).To(ContainSubstring("frame (-expected +actual):"))
		Expect(fail.Failure.Body).To(ContainSubstring(`+   "revision": 3`))
		Expect(fail.Failure.Body).To(ContainSubstring("bindings:\n  executor=executor-1\n  handle=handle-[REDACTED]\n  prepare=prepare"))
		Expect(fail.Failure.Body).To(ContainSubstring("spec: runtime-protocol.md#preparation-and-execution-order"))
		Expect(fail.SystemOut).To(MatchRegexp(`\+3\.000ms  step 3\s+runtime→core  preparation_status  \{"type":"preparation_status"`))

		herr := junitCase(doc, "connection/daemon-never-started")
		Expect(herr.Error).NotTo(BeNil())
		Expect(herr.Error.Type).To(Equal("harness_error"))
		Expect(herr.Error.Message).To(ContainSubstring("permission denied"))

		na := junitCase(doc, "runs/needs-steering")
		Expect(na.Skipped).NotTo(BeNil())
		Expect(na.Skipped.Message).To(Equal("requires: steering"))

		inc := junitCase(doc, "cancellation/deadline-after-dispatch")
		Expect(inc.Skipped).NotTo(BeNil())
		Expect(inc.Skipped.Message).To(Equal("inconclusive: the deadline passed after dispatch: the effect is unknown (step 2, catalog/c.yaml:9)"))

		xfail := junitCase(doc, "runs/known/still-broken")
		Expect(xfail.Skipped).NotTo(BeNil())
		Expect(xfail.Skipped.Message).To(HavePrefix("known failing: preparation_status payload.revision: want 2, got 3 (step 3"))
		Expect(xfail.Failure).To(BeNil())

		xpass := junitCase(doc, "runs/known/fixed-meanwhile")
		Expect(xpass.Failure).NotTo(BeNil())
		Expect(xpass.Failure.Type).To(Equal("unexpected_pass"))
	})

	It("renders a hostile frame inert: no markup and no CDATA end survive", func() {
		out := render(reports.WriteJUnit, handRun())
		Expect(out).NotTo(ContainSubstring("<script>"))
		Expect(out).NotTo(ContainSubstring("</script>"))
		Expect(out).NotTo(ContainSubstring("]]>"))
		Expect(out).NotTo(ContainSubstring("<img"))
		Expect(out).NotTo(ContainSubstring("\x00"))
		doc := parseJUnit(out)
		c := junitCase(doc, "admission/prepare/hostile-frame")
		Expect(c.Failure.Message).To(ContainSubstring(hostile), "escaped, the text still reads as sent")
		Expect(c.SystemOut).To(ContainSubstring(hostile+"␀␛"), "control characters are shown as their pictures")
	})

	It("parses for a run of real results", func() {
		run := realRun()
		doc := parseJUnit(render(reports.WriteJUnit, run))
		Expect(doc.Tests).To(Equal(len(run.Cases)))
		Expect(doc.Failures).To(Equal(3))
		Expect(doc.Errors).To(BeZero())
		c := junitCase(doc, "broken/wrong-revision")
		Expect(c.Failure.Message).To(Equal("runtime frame differs: payload.revision: want 2, got 3 (step 3, ../scriptedcore/testdata/pairs.yaml:13)"))
	})
})

var _ = Describe("JUnit failure bodies", Label("junit"), func() {
	It("name the step and where it is written, and leave out what is unknown", func() {
		doc := parseJUnit(render(reports.WriteJUnit, handRun()))
		Expect(junitCase(doc, "admission/prepare/wrong-revision").Failure.Body).To(HavePrefix(
			"admission/prepare/wrong-revision\nstep 3: runtime sends preparation_status\nat catalog/admission/prepare.yaml:13\npreparation_status payload.revision: want 2, got 3\n"))
		Expect(junitCase(doc, "connection/daemon-never-started").Error.Body).To(HavePrefix(
			"connection/daemon-never-started\nbefore the first step\nlaunch: exec: ./mydaemon: permission denied\n"))
	})
})

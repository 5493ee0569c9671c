package reports_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"html"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/reports"
)

type svgDiagram struct {
	Width  string `xml:"width,attr"`
	Height string `xml:"height,attr"`
	Heads  []struct {
		Text []string `xml:"text"`
	} `xml:"g"`
	Bands []struct {
		Class string `xml:"class,attr"`
	} `xml:"rect"`
	Rows []struct {
		Href string `xml:"href,attr"`
		G    struct {
			Class string `xml:"class,attr"`
			Title string `xml:"title"`
			Text  string `xml:"text"`
			Line  *struct {
				X1 int `xml:"x1,attr"`
				X2 int `xml:"x2,attr"`
			} `xml:"line"`
		} `xml:"g"`
	} `xml:"a"`
}

// caseSection returns the <details> of the case with the given id.
func caseSection(page, id string) string {
	for _, chunk := range strings.Split(page, `<details class="case `)[1:] {
		if strings.Contains(chunk[:strings.Index(chunk, ">")], ` data-id="`+html.EscapeString(id)+`"`) {
			return chunk
		}
	}
	Fail("no section for " + id)
	return ""
}

func diagramOf(section string) svgDiagram {
	raw := regexp.MustCompile(`(?s)<svg class="seq".*?</svg>`).FindString(section)
	ExpectWithOffset(1, raw).NotTo(BeEmpty())
	var d svgDiagram
	ExpectWithOffset(1, xml.Unmarshal([]byte(raw), &d)).To(Succeed(), "the diagram is well-formed SVG")
	return d
}

var _ = Describe("HTML", Label("html"), func() {
	var page string
	BeforeEach(func() { page = render(reports.WriteHTML, mixedRun()) })

	It("is one self-contained file", func() {
		Expect(page).To(HavePrefix("<!doctype html>"))
		Expect(regexp.MustCompile(`(?i)<link|@import|@font-face|<iframe|<object|<embed|<img`).FindAllString(page, -1)).To(BeEmpty())
		Expect(regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).FindAllString(page, -1)).To(BeEmpty())
		for _, u := range regexp.MustCompile(`url\(([^)]*)\)`).FindAllStringSubmatch(page, -1) {
			Expect(u[1]).To(HavePrefix("#"), "only references inside the page")
		}
	})

	It("runs only its own script, pinned by hash in the Content-Security-Policy", func() {
		scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(page, -1)
		Expect(scripts).To(HaveLen(1))
		Expect(strings.Count(strings.ToLower(page), "<script")).To(Equal(1))
		sum := sha256.Sum256([]byte(scripts[0][1]))
		csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(page)
		Expect(csp).NotTo(BeNil())
		Expect(csp[1]).To(Equal("default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-" +
			base64.StdEncoding.EncodeToString(sum[:]) + "'"))
		Expect(regexp.MustCompile(`(?i)<[a-z][^>]*\son[a-z]+=`).FindAllString(page, -1)).To(BeEmpty(), "no inline event handlers")
	})

	It("renders a hostile frame inert everywhere it appears", func() {
		for _, raw := range []string{"<script>alert", "</script><script>", "<img src=x"} {
			Expect(strings.Contains(page, raw)).To(BeFalse(), raw)
		}
		section := caseSection(page, "admission/prepare/hostile-frame")
		escaped := html.EscapeString(hostile)
		Expect(strings.Count(section, escaped)).To(BeNumerically(">=", 4), "message, received, binding, transcript")
		d := diagramOf(section)
		Expect(d.Rows[len(d.Rows)-1].G.Text).To(ContainSubstring("</script><script>alert(1)"), "the diagram shows the text, as text")
	})

	It("has one section per case, in id order, the ones that need attention open", func() {
		run := mixedRun()
		ids := regexp.MustCompile(`<details class="case ([a-z_]+)" id="case-(\d+)" data-outcome="([a-z_]+)" data-attention="([01])" data-id="([^"]+)"( open)?>`).FindAllStringSubmatch(page, -1)
		Expect(ids).To(HaveLen(len(run.Cases)))
		prev := ""
		for i, m := range ids {
			Expect(m[2]).To(Equal(fmt.Sprint(i + 1)))
			Expect(m[1]).To(Equal(m[3]))
			Expect(m[5] >= prev).To(BeTrue(), "sorted: %s after %s", m[5], prev)
			prev = m[5]
			attention := m[3] != "passed" && m[3] != "not_applicable" && m[3] != "expected_fail"
			Expect(m[4] == "1").To(Equal(attention), m[5])
			Expect(m[6] == " open").To(Equal(attention), m[5])
		}
		Expect(page).To(ContainSubstring(`<span class="badge unexpected_pass">UNEXPECTED PASS</span>`))
		Expect(page).To(ContainSubstring(`<div class="status">✘ NOT CERTIFIED</div>`))
		Expect(page).To(ContainSubstring(`<div class="line">` + html.EscapeString(run.ProfileLine()) + `</div>`))
	})

	It("shows the failing step, its diff, the bindings, the seed and spec links", func() {
		s := caseSection(page, "admission/prepare/wrong-revision")
		Expect(s).To(ContainSubstring(`<div class="facts">spec: <code>runtime-protocol.md#preparation-and-execution-order</code></div>`), "no spec given: no link")
		Expect(s).To(ContainSubstring(`<div class="where">Step 3: runtime sends preparation_status — <code>catalog/admission/prepare.yaml:13</code></div>`))
		Expect(s).To(ContainSubstring(`<span class="del">-   &#34;revision&#34;: 2,</span><span class="add">&#43;   &#34;revision&#34;: 3</span>`))
		Expect(s).To(ContainSubstring(`<tr><td class="mono">${handle}</td><td class="mono">handle-[REDACTED]</td></tr>`))
		Expect(s).To(ContainSubstring(`seed <b class="mono">42</b>`))

		run := handRun()
		run.SpecBase = "https://example.invalid/spec/"
		run.Cases[0].Result.Spec = []string{"test", "https://example.invalid/other#x"}
		other := render(reports.WriteHTML, run)
		Expect(other).To(ContainSubstring(`<a href="https://example.invalid/spec/runtime-protocol.md#preparation-and-execution-order">`))
		Expect(other).To(ContainSubstring(` <code>test</code> <a href="https://example.invalid/other#x">`), "a bare reference is not a link")
	})

	It("draws a sequence diagram: one arrow per frame, events as notes, the failing step highlighted", func() {
		d := diagramOf(caseSection(page, "admission/prepare/wrong-revision"))
		Expect(d.Heads[0].Text).To(Equal([]string{"Core (wirecheck)", "Runtime (under test)"}))
		var kinds, labels []string
		for _, r := range d.Rows {
			kinds = append(kinds, r.G.Class)
			labels = append(labels, r.G.Text)
		}
		Expect(kinds).To(Equal([]string{"event ", "event ", "frame heartbeat", "frame ", "frame ", "frame fail", "verdict fail"}))
		Expect(labels).To(Equal([]string{"attempt: bootstrap", "connected: device runtime", "heartbeat", "execution_prepare · prepare",
			"preparation_status · prepare", "preparation_status · prepare", "✗ fail at step 3: preparation_status payload.revision: want 2, got 3"}))
		Expect(d.Rows[3].G.Line.X1).To(BeNumerically("<", d.Rows[3].G.Line.X2), "Core → Runtime points right")
		Expect(d.Rows[4].G.Line.X1).To(BeNumerically(">", d.Rows[4].G.Line.X2), "Runtime → Core points left")
		Expect(d.Rows[5].Href).To(MatchRegexp(`^#case-\d+-x5$`))
		Expect(d.Rows[5].G.Title).To(ContainSubstring(`"revision": 3`), "the frame's JSON on hover")
		Expect(d.Bands).To(ContainElement(HaveField("Class", "band")))

		// A frame that never came is drawn where it was due.
		d = diagramOf(caseSection(page, "cancellation/deadline-after-dispatch"))
		last := d.Rows[len(d.Rows)-2]
		Expect(last.G.Class).To(Equal("missing fail"))
		Expect(last.G.Text).To(Equal("expected preparation_status · prepare — not received"))
		Expect(last.G.Line.X1).To(BeNumerically(">", last.G.Line.X2), "from the Runtime")

		// Real transcripts: as many rows as entries, plus the verdict of a failure.
		for _, c := range realResults() {
			d := diagramOf(caseSection(page, c.Result.Scenario+suffixFor(c)))
			extra := 0
			if c.Result.Failure != nil {
				extra = 1
				if c.Result.Failure.Actual == nil && c.Result.Failure.Expected != nil {
					extra = 2
				}
			}
			Expect(d.Rows).To(HaveLen(len(c.Result.Transcript)+extra), c.Result.Scenario)
		}
	})
})

// suffixFor names the cases the self-check played from both sides, as the reports do.
func suffixFor(c reports.Case) string {
	n := 0
	for _, o := range realResults() {
		if o.Result.Scenario == c.Result.Scenario {
			n++
		}
	}
	if n > 1 {
		return " (scripted " + string(c.Result.Played) + ")"
	}
	return ""
}

var _ = Describe("HTML index", Label("html"), func() {
	It("lists the cases that need attention at the top, linked to their sections", func() {
		page := render(reports.WriteHTML, handRun())
		card := regexp.MustCompile(`(?s)<section class="card attention">.*?</section>`).FindString(page)
		Expect(card).To(ContainSubstring("Needs attention (5)"))
		links := regexp.MustCompile(`<a href="#(case-\d+)"><code>([^<]+)</code></a>`).FindAllStringSubmatch(card, -1)
		Expect(links).To(HaveLen(5))
		for _, l := range links {
			Expect(page).To(ContainSubstring(`id="` + l[1] + `" data-outcome=`))
		}
		Expect(card).To(ContainSubstring(`<code>runs/known/fixed-meanwhile</code></a> <span class="headline">listed as known failing, but it passed</span>`))
		Expect(render(reports.WriteHTML, &reports.Run{})).NotTo(ContainSubstring(`class="card attention"`))
	})
})

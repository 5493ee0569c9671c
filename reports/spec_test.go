package reports_test

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

// deadLinks returns every link of a page that goes nowhere: an in-page link with no element of
// that id, or a link to a relative file (the report is one self-contained file).
func deadLinks(page string) []string {
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		ids[html.UnescapeString(m[1])] = true
	}
	var dead []string
	for _, m := range regexp.MustCompile(` href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		href := html.UnescapeString(m[1])
		switch {
		case regexp.MustCompile(`^https?://`).MatchString(href):
		case len(href) > 1 && href[0] == '#' && ids[href[1:]]:
		default:
			dead = append(dead, href)
		}
	}
	return dead
}

// specRun is one passing case citing refs, resolved against dirs.
func specRun(dirs []string, refs ...string) *reports.Run {
	res := result("a/cites", scenarios.Pass, nil, nil)
	res.Spec = refs
	return &reports.Run{Profile: contractProfile(), SpecDirs: dirs, Cases: []reports.Case{{Result: res}}}
}

// catalogSpecDir is where the spec the catalog cites lives on this machine (it is not part of
// the repository): $WIRECHECK_SPEC_DIR, else the shared/spec directory next to the checkout.
func catalogSpecDir() string {
	if d := os.Getenv("WIRECHECK_SPEC_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "spec")
}

var _ = Describe("spec references in the HTML", Label("html", "spec"), func() {
	It("link to the cited sections, quoted in the page, when the spec directory is given", func() {
		page := render(reports.WriteHTML, specRun([]string{"testdata/spec"},
			"facts.md#14-version-rule", "protocol.md#ownership-and-connection", "protocol.md#preparation-and-execution-order",
			"facts.md#9-nowhere", "missing.md#x", "../facts.md#14-version-rule", "https://example.invalid/spec#y", "word"))
		Expect(deadLinks(page)).To(BeEmpty())
		sections := regexp.MustCompile(`(?s)<div class="spec" id="(spec-\d+)"><h3><code>([^<]+)</code></h3><div class="heading">([^<]+)</div><pre class="spec">(.*?)</pre></div>`).FindAllStringSubmatch(page, -1)
		Expect(sections).To(HaveLen(3))
		Expect(sections[0][2:]).To(Equal([]string{"facts.md#14-version-rule", "facts.md: ### 1.4 Version rule [R: `proto/version.go`]",
			"The versions must be equal, byte for byte.\nA mismatch is refused with 426."}), "a heading named by its first words; the section ends at the next heading of its level")
		Expect(sections[1][2:]).To(Equal([]string{"protocol.md#ownership-and-connection", "protocol.md: Ownership and connection",
			"Core owns durable records. Runtime owns native Executors.\n\nA Runtime connects in this order:\n\n1. Obtain a credential.\n2. Call bootstrap."}),
			"plain text: a line standing alone is a heading")
		Expect(sections[2][2]).To(Equal("protocol.md#preparation-and-execution-order"))
		Expect(page).To(ContainSubstring(`<a href="#` + sections[0][1] + `"><code>facts.md#14-version-rule</code></a>`))

		Expect(page).To(ContainSubstring(`<code>facts.md#9-nowhere</code> <span class="unresolved">(facts.md has no heading #9-nowhere)</span>`))
		Expect(page).To(ContainSubstring(`<code>missing.md#x</code> <span class="unresolved">(missing.md is not in the spec directories given)</span>`))
		Expect(page).To(ContainSubstring(`<code>../facts.md#14-version-rule</code> <span class="unresolved">(not a file name of the spec directory)</span>`))
		Expect(page).To(ContainSubstring(`<a href="https://example.invalid/spec#y">`))
		Expect(page).To(ContainSubstring(`Spec references link to the 3 cited sections quoted at the end of this page`))
	})

	It("are not links without the spec, and say so", func() {
		page := render(reports.WriteHTML, specRun(nil, "facts.md#14-version-rule"))
		Expect(deadLinks(page)).To(BeEmpty())
		Expect(page).To(ContainSubstring(`spec: <code>facts.md#14-version-rule</code></div>`))
		Expect(page).To(ContainSubstring("Spec references are not linked: this report was written without the spec files"))
		Expect(page).NotTo(ContainSubstring(`class="spec"`))
	})

	It("leave no dead link in a report of every outcome and real results", func() {
		Expect(deadLinks(render(reports.WriteHTML, mixedRun()))).To(BeEmpty())
	})

	// Every `spec:` reference of the embedded catalog resolves to a section of the spec it cites.
	// The spec is not in the repository; without it this test has nothing to check against.
	It("resolve for every reference of the embedded catalog", func() {
		dir := catalogSpecDir()
		if _, err := os.Stat(filepath.Join(dir, "runtime-protocol.md")); err != nil {
			Skip("no spec directory at " + dir + " (set WIRECHECK_SPEC_DIR)")
		}
		cat, err := scenarios.Embedded()
		Expect(err).NotTo(HaveOccurred())
		var refs []string
		for _, sc := range cat.Scenarios {
			refs = append(refs, sc.Spec...)
		}
		slices.Sort(refs)
		refs = slices.Compact(refs)
		Expect(refs).NotTo(BeEmpty())
		page := render(reports.WriteHTML, specRun([]string{dir, "../docs"}, refs...))
		Expect(deadLinks(page)).To(BeEmpty())
		Expect(page).NotTo(ContainSubstring(`class="unresolved"`), "every reference resolves")
		Expect(regexp.MustCompile(`<div class="spec" id="spec-\d+">`).FindAllString(page, -1)).To(HaveLen(len(refs)))
	})
})

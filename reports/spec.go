package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Bounds of one spec excerpt in the HTML report.
const (
	specExcerptLines = 60
	specExcerptBytes = 8 << 10
)

// specSection is what a spec reference ("runtime-protocol.md#ownership-and-connection") resolved
// to in Run.SpecDirs: the heading it names and the text under it, or why it did not resolve.
type specSection struct {
	Ref     string
	File    string
	Heading string // the heading line, as written
	Text    string // the excerpt under it, cut to the bounds
	Problem string // set when the reference does not resolve; nothing links to it then
}

// resolveSpecs resolves every reference that names a file and an anchor ("file.md#anchor")
// against the spec files in dirs (the first that holds the file), each file read once. Other
// references (URLs, bare words) are not looked up.
func resolveSpecs(dirs []string, refs []string) map[string]specSection {
	out := map[string]specSection{}
	files := map[string][]string{} // file → lines; nil once it failed to read
	failed := map[string]string{}
	for _, ref := range refs {
		file, anchor, ok := strings.Cut(ref, "#")
		if _, seen := out[ref]; seen || !ok || !strings.HasSuffix(file, ".md") || strings.Contains(ref, "://") {
			continue
		}
		s := specSection{Ref: ref, File: file}
		if file != filepath.Base(file) || file == ".." {
			s.Problem = "not a file name of the spec directory"
			out[ref] = s
			continue
		}
		lines, read := files[file]
		if !read && failed[file] == "" {
			data, err := readFirst(dirs, file)
			if err != nil {
				failed[file] = fmt.Sprintf("%s is not in the spec directories given", file)
			} else {
				lines = strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
				files[file] = lines
			}
		}
		if why := failed[file]; why != "" {
			s.Problem = why
			out[ref] = s
			continue
		}
		if h, ok := findHeading(headings(lines), anchor); ok {
			s.Heading, s.Text = strings.TrimSpace(lines[h.line]), excerpt(lines, h)
		} else {
			s.Problem = fmt.Sprintf("%s has no heading #%s", file, anchor)
		}
		out[ref] = s
	}
	return out
}

// heading is a heading of a spec file: a Markdown ATX heading (level 1–6) or, in a file that has
// none (a plain-text rendering), a line standing alone between blank lines (level 0).
type heading struct {
	line  int
	level int
	slug  string
}

var atxHeading = regexp.MustCompile(`^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$`)

func headings(lines []string) []heading {
	var atx, plain []heading
	for i, l := range lines {
		if m := atxHeading.FindStringSubmatch(l); m != nil {
			atx = append(atx, heading{line: i, level: len(m[1]), slug: slug(m[2])})
			continue
		}
		alone := strings.TrimSpace(l) != "" && (i == 0 || strings.TrimSpace(lines[i-1]) == "") &&
			(i == len(lines)-1 || strings.TrimSpace(lines[i+1]) == "")
		if alone && !strings.Contains(l, "\t") && len(l) <= 200 {
			plain = append(plain, heading{line: i, slug: slug(l)})
		}
	}
	if len(atx) > 0 {
		return atx
	}
	return plain
}

// findHeading finds the heading an anchor names: the one whose GitHub anchor it is, else the first
// whose anchor starts with it and a hyphen (the fact sheets end headings with a source note the
// references leave out: "43-execution-admission" names "4.3 Execution admission: … [R: …]").
func findHeading(hs []heading, anchor string) (heading, bool) {
	anchor = strings.ToLower(anchor)
	if i := slices.IndexFunc(hs, func(h heading) bool { return h.slug == anchor }); i >= 0 {
		return hs[i], true
	}
	if i := slices.IndexFunc(hs, func(h heading) bool { return anchor != "" && strings.HasPrefix(h.slug, anchor+"-") }); i >= 0 {
		return hs[i], true
	}
	return heading{}, false
}

// slug is the anchor GitHub gives a heading: lower case, every character but letters, digits,
// '_', '-' and spaces dropped, spaces made hyphens.
func slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// excerpt is the text under a heading up to the next heading of its level or above (for plain
// text: the next line shaped like a heading), cut to the bounds.
func excerpt(lines []string, h heading) string {
	var out []string
	size := 0
	for i := h.line + 1; i < len(lines); i++ {
		l := lines[i]
		if ends(lines, i, h) {
			break
		}
		if len(out) == specExcerptLines || size+len(l) > specExcerptBytes {
			out = append(out, "[…]")
			break
		}
		out = append(out, l)
		size += len(l) + 1
	}
	return strings.Trim(strings.Join(out, "\n"), "\n")
}

// ends: line i starts the next section after h.
func ends(lines []string, i int, h heading) bool {
	l := lines[i]
	if h.level > 0 {
		m := atxHeading.FindStringSubmatch(l)
		return m != nil && len(m[1]) <= h.level
	}
	blankAround := (i == 0 || strings.TrimSpace(lines[i-1]) == "") && (i == len(lines)-1 || strings.TrimSpace(lines[i+1]) == "")
	t := strings.TrimSpace(l)
	if !blankAround || t == "" || len(t) > 80 || strings.Contains(l, "\t") || strings.ContainsAny(t[len(t)-1:], ".:;,?!)") {
		return false
	}
	first := []rune(t)[0]
	return unicode.IsUpper(first) || unicode.IsDigit(first)
}

// specLinker returns how the HTML links a case's spec reference, and the sections it links to.
// With SpecDirs, a reference links to its excerpt at the end of the page, or says why there is
// none; with SpecBase only, references are linked under it; with neither, only URLs are links.
// A report never links to what it cannot vouch for.
func (r *Run) specLinker() (func(string) htmlLink, []htmlSpec) {
	if len(r.SpecDirs) == 0 {
		return func(ref string) htmlLink { return htmlLink{Text: ref, Href: specHref(r.SpecBase, ref)} }, nil
	}
	var refs []string
	for _, c := range r.Cases {
		refs = append(refs, c.Result.Spec...)
	}
	resolved := resolveSpecs(r.SpecDirs, refs)
	keys := make([]string, 0, len(resolved))
	for ref, s := range resolved {
		if s.Problem == "" {
			keys = append(keys, ref)
		}
	}
	slices.Sort(keys)
	var specs []htmlSpec
	anchor := map[string]string{}
	for i, ref := range keys {
		anchor[ref] = fmt.Sprintf("spec-%d", i+1)
		specs = append(specs, htmlSpec{Anchor: anchor[ref], specSection: resolved[ref]})
	}
	return func(ref string) htmlLink {
		if a, ok := anchor[ref]; ok {
			return htmlLink{Text: ref, Href: "#" + a}
		}
		if s, ok := resolved[ref]; ok {
			return htmlLink{Text: ref, Problem: s.Problem}
		}
		return htmlLink{Text: ref, Href: specHref("", ref)}
	}, specs
}

// specNote says in the footer where spec links go.
func (r *Run) specNote(sections int) string {
	switch {
	case len(r.SpecDirs) > 0:
		return fmt.Sprintf("Spec references link to the %d cited %s quoted at the end of this page, from the spec files given; a reference that did not resolve says why.",
			sections, plural(sections, "section", "sections"))
	case r.SpecBase != "":
		return "Spec references link under " + r.SpecBase + "."
	}
	return "Spec references are not linked: this report was written without the spec files (give the spec directory to quote the cited sections here)."
}

// readFirst reads file from the first of dirs that holds it.
func readFirst(dirs []string, file string) ([]byte, error) {
	var last error = os.ErrNotExist
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err == nil {
			return data, nil
		}
		last = err
	}
	return nil, last
}

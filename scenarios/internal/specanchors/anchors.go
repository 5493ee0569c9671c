package main

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Slug is GitHub's anchor for a heading's text: lowercased, every character that is not a letter,
// a number, a mark, '-', '_' or a space removed, each space then a '-'. Markdown is rendered
// first: a link keeps its text, code spans and emphasis their content.
func Slug(heading string) string {
	text := linkRE.ReplaceAllString(heading, "$1")
	text = strongUnderscoreRE.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	linkRE             = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	strongUnderscoreRE = regexp.MustCompile(`__([^_]+)__`)
	atxRE              = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`)
	fenceRE            = regexp.MustCompile("^ {0,3}(```|~~~)")
)

// Headings returns the headings of a Markdown file in order: its ATX headings (# ...) outside code
// fences. A file with none was stored without its Markdown (the spec text's links and marks were
// stripped, protocol-facts §0.1); its headings are then the lines that stand alone between blank
// lines, hold no tab (a table row) and do not end as a sentence does (. : ; , ? !).
func Headings(text string) []string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []string
	inFence := false
	for _, l := range lines {
		if fenceRE.MatchString(l) {
			inFence = !inFence
			continue
		}
		if m := atxRE.FindStringSubmatch(l); m != nil && !inFence {
			out = append(out, m[2])
		}
	}
	if len(out) > 0 {
		return out
	}
	blank := func(i int) bool { return i < 0 || i >= len(lines) || strings.TrimSpace(lines[i]) == "" }
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || !blank(i-1) || !blank(i+1) || strings.ContainsRune(l, '\t') || l != strings.TrimLeft(l, " ") ||
			strings.ContainsAny(t[len(t)-1:], ".:;,?!") {
			continue
		}
		out = append(out, t)
	}
	return out
}

// Anchors returns the anchors of a file's headings, a repeated one suffixed -1, -2, ... as GitHub
// does.
func Anchors(text string) []string {
	seen := map[string]int{}
	var out []string
	for _, h := range Headings(text) {
		s := Slug(h)
		if n, dup := seen[s]; dup {
			seen[s] = n + 1
			s = fmt.Sprintf("%s-%d", s, n+1)
		} else {
			seen[s] = 0
		}
		out = append(out, s)
	}
	return out
}

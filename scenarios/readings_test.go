package scenarios

import (
	"bufio"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// readingsDoc is the project's record of the places where the spec admits more than one reading.
const readingsDoc = "../docs/spec-readings.md"

var readingHeadingRE = regexp.MustCompile(`^### (\S+)\s*$`)

// readingEntries returns the entries of docs/spec-readings.md: the slug of every `### <slug>`
// heading, with the line it is on.
func readingEntries(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open(readingsDoc)
	if err != nil {
		t.Fatalf("the catalog names spec readings, so %s must exist: %v", readingsDoc, err)
	}
	defer f.Close()
	entries := map[string]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		m := readingHeadingRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		slug := m[1]
		if !readingRE.MatchString(slug) {
			t.Errorf("%s:%d: heading %q is not an entry name (lowercase words joined by -)", readingsDoc, line, slug)
			continue
		}
		if prev, dup := entries[slug]; dup {
			t.Errorf("%s:%d: entry %q again (first at line %d)", readingsDoc, line, slug, prev)
			continue
		}
		entries[slug] = line
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return entries
}

// catalogReadings returns every reading a matcher of the catalog names, with where it is named.
func catalogReadings(c *Catalog) map[string][]string {
	out := map[string][]string{}
	for _, sc := range c.Scenarios {
		walkMatchers(reflect.ValueOf(sc.Vars), func(m *Matcher) {
			if m.Reading != "" {
				out[m.Reading] = append(out[m.Reading], sc.ID+" ("+sc.Pos.String()+", vars)")
			}
		})
		for _, st := range sc.Steps {
			where := sc.ID + " (" + st.Pos.String() + ")"
			if st.Close != nil && st.Close.Reading != "" {
				out[st.Close.Reading] = append(out[st.Close.Reading], where)
			}
			walkMatchers(reflect.ValueOf(st), func(m *Matcher) {
				if m.Reading != "" {
					out[m.Reading] = append(out[m.Reading], where)
				}
			})
		}
	}
	return out
}

// walkMatchers calls f on every *Matcher reachable from v through exported fields, maps, slices
// and interfaces (templates hold matchers at any depth, $one_of alternatives and $optional inner
// templates included). Fault rules (package fault's) hold no template of this package.
func walkMatchers(v reflect.Value, f func(*Matcher)) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			walkMatchers(v.Elem(), f)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if m, ok := v.Interface().(*Matcher); ok {
			f(m)
			walkMatchers(reflect.ValueOf(m.Inner), f)
			walkMatchers(reflect.ValueOf(m.Sample), f)
			walkMatchers(reflect.ValueOf(m.Tar), f)
			for _, alt := range m.OneOf {
				walkMatchers(reflect.ValueOf(alt), f)
			}
			return
		}
		walkMatchers(v.Elem(), f)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walkMatchers(v.Field(i), f)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkMatchers(v.Index(i), f)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			walkMatchers(iter.Value(), f)
		}
	}
}

// Every relaxation of a code in the catalog names the spec reading that allows it (the loader
// requires `reading:`), and every reading it names is an entry of docs/spec-readings.md, so the
// sentence, the readings and why the catalog accepts each answer are written down. Entries no
// scenario names are fine: some readings need no relaxation (the catalog accepts one answer
// because the other is excluded, or the reading decides a silence).
func TestCatalogReadingsAreDocumented(t *testing.T) {
	cat, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	entries := readingEntries(t)
	if len(entries) == 0 {
		t.Fatalf("%s has no `### <slug>` entry", readingsDoc)
	}
	named := catalogReadings(cat)
	if len(named) == 0 {
		t.Fatal("no matcher of the catalog names a reading: the walk over the templates found none")
	}
	var slugs []string
	for slug := range named {
		slugs = append(slugs, slug)
	}
	sort.Strings(slugs)
	for _, slug := range slugs {
		if _, ok := entries[slug]; !ok {
			t.Errorf("reading %q has no entry `### %s` in %s; named by:\n  %s", slug, slug, readingsDoc, strings.Join(named[slug], "\n  "))
		}
	}
}

// The walk finds a reading wherever a template can hold one: a frame's payload at depth, inside a
// $one_of alternative, an any_order member.
func TestCatalogReadingsWalk(t *testing.T) {
	inner := &Matcher{OneOf: []Value{"a", "b"}, Reading: "deep-reading"}
	st := &Step{Kind: StepAnyOrder, Group: []*Step{{Kind: StepRuntime, Frame: &FrameTemplate{
		Payload: map[string]Value{"x": []Value{&Matcher{OneOf: []Value{map[string]Value{"code": inner}}, Reading: "outer-reading"}}},
	}}}}
	got := map[string]bool{}
	walkMatchers(reflect.ValueOf(st), func(m *Matcher) { got[m.Reading] = true })
	for _, want := range []string{"deep-reading", "outer-reading"} {
		if !got[want] {
			t.Errorf("the walk missed %q; found %v", want, got)
		}
	}
}

package wiretag_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto/internal/wiretag"
)

type inner struct {
	A string `json:"a" wire:"req"`
}

type embedded struct {
	E int `json:"e,omitempty" wire:"opt"`
}

type sample struct {
	embedded
	Fine     string  `json:"fine" wire:"req,null"`
	Untagged string  `json:"untagged"`
	Omitted  string  `json:"omitted,omitempty" wire:"req"`
	Unknown  string  `json:"unknown" wire:"opt,maybe"`
	Both     string  `json:"both" wire:"req,opt"`
	Neither  string  `json:"neither" wire:"null"`
	NotRaw   string  `json:"not_raw" wire:"opt,object"`
	Nested   *inner  `json:"nested" wire:"opt"`
	List     []inner `json:"list" wire:"opt"`
	Skipped  string  `json:"-"`
	//lint:ignore U1000 the walk must skip an unexported field, so the fixture has one
	unexposed string   // not a member: unexported
	Strings   []string `json:"strings,omitempty" wire:"opt"`
}

// A member without a decision, or with a malformed one, is a problem; the walk still lists it.
func TestProblems(t *testing.T) {
	members, problems := wiretag.Members(reflect.TypeFor[sample]())
	var names []string
	for _, m := range members {
		names = append(names, m.Name)
	}
	if got, want := strings.Join(names, " "), "e fine untagged omitted unknown both neither not_raw nested list strings"; got != want {
		t.Errorf("members = %s, want %s", got, want)
	}
	want := map[string]string{
		"Untagged": "no wire decision",
		"Omitted":  "omitempty",
		"Unknown":  `unknown wire option "maybe"`,
		"Both":     "exactly one of req and opt",
		"Neither":  "exactly one of req and opt",
		"NotRaw":   "json.RawMessage members only",
	}
	got := map[string]string{}
	for _, p := range problems {
		got[p.Field] = p.Error()
	}
	for field, fragment := range want {
		if !strings.Contains(got[field], fragment) {
			t.Errorf("%s: problem %q, want one mentioning %q", field, got[field], fragment)
		}
		delete(got, field)
	}
	for field, p := range got {
		t.Errorf("%s: unexpected problem %s", field, p)
	}
}

func TestWalkPaths(t *testing.T) {
	type root struct {
		Nested *inner   `json:"nested" wire:"opt"`
		List   []inner  `json:"list" wire:"req"`
		Tags   []string `json:"tags" wire:"opt,null"`
	}
	nodes, err := wiretag.Walk(reflect.TypeFor[root]())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nodes {
		got = append(got, n.Path.String()+" "+n.Member.Decision.String()+" "+wiretag.Shape(n.Member.Type))
	}
	want := "nested opt object|nested.a req string|list req array(object)|list[0].a req string|tags opt,null array(string)"
	if strings.Join(got, "|") != want {
		t.Errorf("walk:\n got %s\nwant %s", strings.Join(got, "|"), want)
	}
}

package scenarios

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A repeat stands for its steps written count times, ${i} the copy's number, always a string.
func TestRepeatExpandsAtLoadTime(t *testing.T) {
	scs, err := Parse("f.yaml", []byte(`id: a
title: t
steps:
  - silence: core
  - repeat:
      count: 3
      steps:
        - core: {type: prompt_cancel, id: "${run}", payload: {delivery_id: "c-${i}"}}
        - runtime:
            type: done
            id: "${run}"
            payload:
              content: ${i}
  - silence: runtime
`))
	if err != nil {
		t.Fatal(err)
	}
	cat, errs := Link(scs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	sc, _ := cat.Get("a")
	var got []string
	for _, st := range sc.Steps {
		what := string(st.Kind)
		if st.Frame != nil {
			p := st.Frame.Payload.(map[string]Value)
			what += " " + st.Frame.Type + " " + st.Frame.ID.(string) + " " + strings.TrimSpace(toString(p["delivery_id"])+toString(p["content"]))
		}
		got = append(got, what)
	}
	want := []string{"silence",
		"core prompt_cancel ${run} c-1", "runtime done ${run} 1",
		"core prompt_cancel ${run} c-2", "runtime done ${run} 2",
		"core prompt_cancel ${run} c-3", "runtime done ${run} 3",
		"silence"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("expanded steps (-want +got):\n%s", diff)
	}
	if sc.Steps[6].Index != 7 || sc.Steps[6].Pos.Line != 9 || sc.Steps[5].Pos.Line != 8 {
		t.Errorf("a copy is a step of its own at its body's line: index %d, line %d", sc.Steps[6].Index, sc.Steps[6].Pos.Line)
	}
}

func toString(v Value) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// The repeats of a file expand to a bounded number of YAML nodes, so a small file cannot expand
// into the memory a large one is refused for.
func TestRepeatExpansionIsBounded(t *testing.T) {
	step := "        - core: {type: prompt_cancel, id: r, payload: {delivery_id: d}}\n"
	doc := "id: a\ntitle: t\nsteps:\n"
	for range 20 {
		doc += "  - repeat:\n      count: 4096\n      steps:\n" + step
	}
	_, err := Parse("f.yaml", []byte(doc))
	var lerrs LoadErrors
	if !errors.As(err, &lerrs) || !strings.Contains(lerrs[0].Msg, "YAML nodes, more than the 262144 they may") {
		t.Fatalf("err = %v", err)
	}
}

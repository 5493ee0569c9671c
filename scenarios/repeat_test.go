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

// ${i+k} and ${i-k} name a neighbour copy's number; {$repeat: {item, count}} is a list of copies.
func TestRepeatOffsetsAndItemLists(t *testing.T) {
	scs, err := Parse("f.yaml", []byte(`id: a
title: t
steps:
  - repeat:
      count: 2
      steps:
        - core: {type: prompt_cancel, id: "r-${i}", payload: {delivery_id: "after-${i-1}-before-${i+1}"}}
  - core:
      type: prompt_request
      id: run
      payload:
        agent_kind: contract
        conversation_id: ''
        run_id: ''
        input:
          $repeat: {count: 3, item: {content: [{type: input_text, text: "m-${i}"}]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	own := scs[0].own
	var ids []string
	for _, st := range own[:2] {
		ids = append(ids, st.Frame.ID.(string)+" "+st.Frame.Payload.(map[string]Value)["delivery_id"].(string))
	}
	if diff := cmp.Diff([]string{"r-1 after-0-before-2", "r-2 after-1-before-3"}, ids); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	input := own[2].Frame.Payload.(map[string]Value)["input"].([]Value)
	var texts []string
	for _, m := range input {
		texts = append(texts, m.(map[string]Value)["content"].([]Value)[0].(map[string]Value)["text"].(string))
	}
	if diff := cmp.Diff([]string{"m-1", "m-2", "m-3"}, texts); diff != "" {
		t.Fatalf("$repeat item copies (-want +got):\n%s", diff)
	}
}

// A bound step loads its peer and names.
func TestBoundLoads(t *testing.T) {
	scs, err := Parse("f.yaml", []byte("id: a\ntitle: t\nsteps:\n  - bound: {from: runtime, names: [gone, kept]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	st := scs[0].own[0]
	if st.Kind != StepBound || st.From != "runtime" || !cmp.Equal(st.Names, []string{"gone", "kept"}) {
		t.Fatalf("step %+v", st)
	}
	if got := st.Describe(); got != "the runtime's frames have bound ${gone}, ${kept}" {
		t.Errorf("Describe() = %q", got)
	}
}

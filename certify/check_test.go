package certify_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/certify"
	"github.com/wirecheck/wirecheck/runner"
)

// A selection that names what does not exist is found before the first scenario, with every
// problem named at once and, for a selection, the labels there are.
func TestCheckRefusesASelectionThatMatchesNothing(t *testing.T) {
	known, err := runner.ParseKnownFailing(strings.NewReader("admission\nadmision/typo\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		cfg  certify.Config
		want []string
	}{
		"a run pattern":         {certify.Config{Run: []string{"admission", "cancelation"}}, []string{`run pattern "cancelation" matches no scenario`, "the labels are: ", "long-timer"}},
		"a skip pattern":        {certify.Config{Skip: []string{"nothing/*"}}, []string{`skip pattern "nothing/*"`}},
		"a label":               {certify.Config{LabelFilter: "preparation && !long-timers"}, []string{`no scenario has the label "long-timers"`, "the labels are: "}},
		"a label regexp":        {certify.Config{LabelFilter: "/^zz/"}, []string{"/^zz/ matches no label"}},
		"a known-failing entry": {certify.Config{KnownFailing: known}, []string{`known-failing entry "admision/typo" matches no scenario`}},
		"an empty selection":    {certify.Config{Run: []string{"admission"}, LabelFilter: "shutdown && !shutdown"}, []string{"no scenario is selected", "the labels are: "}},
		"negative parallelism":  {certify.Config{Parallel: -1}, []string{"parallel is -1"}},
	} {
		c.cfg.Target = runner.ReferenceRuntime{}
		err := certify.Check(context.Background(), c.cfg)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: the error does not say %q:\n%v", name, w, err)
			}
		}
		if _, err := certify.Run(context.Background(), c.cfg); err == nil {
			t.Errorf("%s: Run played it anyway", name)
		}
	}
	if err := certify.Check(context.Background(), certify.Config{Target: runner.ReferenceRuntime{}, KnownFailing: must(runner.ParseKnownFailing(strings.NewReader("admission\n"))),
		Run: []string{"admission/prepare"}, LabelFilter: "preparation && !long-timer"}); err != nil {
		t.Errorf("a selection that matches: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A target that cannot launch a daemon is refused by Check, before anything is played.
type unlaunchable struct{ runner.ReferenceRuntime }

func (unlaunchable) Check(context.Context) error {
	return errors.New("the daemon command is not an executable")
}

func TestCheckAsksTheTarget(t *testing.T) {
	err := certify.Check(context.Background(), certify.Config{Target: unlaunchable{}})
	if err == nil || !strings.Contains(err.Error(), "not an executable") {
		t.Fatalf("Check = %v", err)
	}
}

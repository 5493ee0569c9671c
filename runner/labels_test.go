package runner

import (
	"strings"
	"testing"
)

func TestLabelFilter(t *testing.T) {
	labels := []string{"preparation", "execution", "long-timer"}
	for _, c := range []struct {
		filter string
		want   bool
	}{
		{"", true},
		{"preparation", true},
		{"cancellation", false},
		{"preparation && !long-timer", false},
		{"preparation && execution", true},
		{"cancellation || execution", true},
		{"!(cancellation || shutdown) && preparation", true},
		{"!!preparation", true},
		// Ginkgo's own grammar: comma is or, /regexp/, case-insensitive labels.
		{"cancellation, execution", true},
		{"/^prep/ && !long-timer", false},
		{"/^exec/", true},
		{"PREPARATION", true},
	} {
		f, err := ParseLabelFilter(c.filter)
		if err != nil {
			t.Fatalf("%q: %v", c.filter, err)
		}
		if got := f.Match(labels); got != c.want {
			t.Errorf("%q on %v = %v, want %v", c.filter, labels, got, c.want)
		}
	}
	for _, bad := range []string{"a &&", "(a", "&& a", "a || )", "/[/"} {
		_, err := ParseLabelFilter(bad)
		if err == nil {
			t.Errorf("%q parsed", bad)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, bad) || strings.Contains(msg, "{{") || strings.Contains(msg, "\n") {
			t.Errorf("%q: the error must quote the filter in plain text: %q", bad, msg)
		}
	}
}

func TestKnownFailing(t *testing.T) {
	k, err := ParseKnownFailing(strings.NewReader("# our daemon lacks these\nadmission/expiry\ncancellation/no-settlement-*  # later\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{
		"admission/expiry/expired-admission-and-the-old-handle":   true,
		"cancellation/no-settlement-within-15s-is-cancel-timeout": true,
		"cancellation/unknown-run-is-run-inactive":                false,
	} {
		if k.Has(id) != want {
			t.Errorf("Has(%s) = %v", id, !want)
		}
	}
	if _, err := ParseKnownFailing(strings.NewReader("two ids here\n")); err == nil {
		t.Error("a line with two ids parsed")
	}
}

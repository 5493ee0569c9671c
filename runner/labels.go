package runner

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// LabelFilter is a label expression over scenario labels, parsed by Ginkgo's own parser, so that
// `--label-filter` means exactly what it means to `ginkgo --label-filter` and to the gate's specs
// (which carry the scenario labels): `preparation && !long-timer`, `cancellation, shutdown`
// (comma is or), `/^admission/` (a regular expression), and Ginkgo's set operations on `key: value`
// labels. Labels match case-insensitively, as in Ginkgo. The empty filter selects everything.
type LabelFilter struct {
	src   string
	match types.LabelFilter
}

// ParseLabelFilter parses a filter; an error quotes the expression and says what is wrong.
func ParseLabelFilter(src string) (*LabelFilter, error) {
	m, err := types.ParseLabelFilter(src)
	if err != nil {
		return nil, fmt.Errorf("label filter %q: %s", src, ginkgoMessage(err))
	}
	return &LabelFilter{src: src, match: m}, nil
}

// Match reports whether a scenario with these labels is selected. A nil filter selects everything.
func (f *LabelFilter) Match(labels []string) bool {
	return f == nil || f.match(labels)
}

func (f *LabelFilter) String() string {
	if f == nil {
		return ""
	}
	return f.src
}

// ginkgoMarkup is the colour and emphasis markup of Ginkgo's terminal formatter.
var ginkgoMarkup = regexp.MustCompile(`\{\{[a-z/-]*\}\}`)

// ginkgoMessage turns a Ginkgo parse error (the filter with the offending token underlined, then
// the reason) into one plain line: the reason and, when Ginkgo marked one, the column.
func ginkgoMessage(err error) string {
	ge, ok := err.(types.GinkgoError)
	if !ok {
		return err.Error()
	}
	echo, reason, found := strings.Cut(ge.Message, "\n")
	if !found {
		return strings.TrimSpace(ginkgoMarkup.ReplaceAllString(ge.Message, ""))
	}
	msg := strings.TrimSpace(ginkgoMarkup.ReplaceAllString(reason, ""))
	if at := strings.Index(echo, "{{underline}}"); at >= 0 {
		col := len(ginkgoMarkup.ReplaceAllString(echo[:at], "")) + 1
		msg += fmt.Sprintf(" (column %d)", col)
	}
	return msg
}

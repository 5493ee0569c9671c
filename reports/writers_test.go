package reports_test

import (
	"bytes"
	"io"

	"github.com/wirecheck/wirecheck/reports"
)

var writers = []struct {
	name  string
	write func(io.Writer, *reports.Run) error
}{
	{"junit", reports.WriteJUnit},
	{"json", reports.WriteJSON},
	{"markdown", reports.WriteMarkdown},
	{"html", reports.WriteHTML},
}

func render(write func(io.Writer, *reports.Run) error, run *reports.Run) string {
	var b bytes.Buffer
	if err := write(&b, run); err != nil {
		panic(err)
	}
	return b.String()
}

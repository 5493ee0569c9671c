package monitor_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/monitor"
	"github.com/wirecheck/wirecheck/proto"
)

// FuzzMonitor feeds a conversation of arbitrary frames (one per line, the first byte choosing the
// side and whether the connection closes first) and asks only that the monitor never panics and
// that every alarm names a rule: whatever a peer sends, the monitor reports it and goes on.
func FuzzMonitor(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	for _, name := range files {
		fh, err := os.Open(name)
		if err != nil {
			f.Fatal(err)
		}
		var conv strings.Builder
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "{") {
				conv.WriteString("c" + line + "\n")
				conv.WriteString("r" + line + "\n")
			}
		}
		_ = fh.Close()
		f.Add(conv.String())
	}
	f.Fuzz(func(t *testing.T, conv string) {
		m := monitor.New(nil)
		n := 1
		m.Open(n, "d")
		for _, line := range strings.Split(conv, "\n") {
			if line == "" {
				continue
			}
			from := proto.Core
			switch line[0] {
			case 'r':
				from = proto.Runtime
			case 'x':
				m.Close(n)
				n++
				m.Open(n, "d")
			}
			m.Frame(n, from, []byte(line[1:]))
		}
		for _, a := range m.Alarms() {
			if a.Rule == "" || a.Detail == "" {
				t.Fatalf("an alarm without its rule or detail: %+v", a)
			}
		}
	})
}

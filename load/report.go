package load

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// Report is a load run's result, as printed and as JSON.
type Report struct {
	Seed            int64    `json:"seed"`
	Runtimes        int      `json:"runtimes"`
	RegisterSeconds float64  `json:"register_seconds"`
	Connected       int      `json:"connected"`
	ConnectSeconds  float64  `json:"connect_seconds"`
	ConnectRate     float64  `json:"connections_per_second"`
	Kicked          int      `json:"storm_drops"`
	Reconnects      int64    `json:"reconnects"`
	ConnectErrors   int64    `json:"reconnect_errors"`
	Heartbeats      int64    `json:"heartbeats"`
	HeartbeatErrors int64    `json:"heartbeat_errors"`
	WriteErrors     int64    `json:"write_errors"`
	Unexpected      int64    `json:"unexpected_frames"`
	Rejected        int64    `json:"rejections_sent"`
	Withheld        int64    `json:"receipts_withheld"`
	LoadAverage     []string `json:"load_average"` // /proc/loadavg at the start and the end

	Requested int            `json:"turns_requested"`
	Accepted  int            `json:"turns_accepted"`
	Refused   map[string]int `json:"turns_refused"`
	Outcomes  map[string]int `json:"outcomes"`

	Latency map[string]Dist `json:"latency"`
	Memory  Memory          `json:"memory"`
	Samples []Sample        `json:"samples"`
	Checks  []Check         `json:"checks"`
}

// Dist is a latency distribution in milliseconds.
type Dist struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p999_ms"`
	Max  float64 `json:"max_ms"`
}

// Memory is both sides' memory. The Core's is its resident set when it is a child process (0
// when the Core runs in the simulator's process or elsewhere); the simulator's is what the Go
// runtime holds for it, heap and stacks, measured after a collection before and after connecting.
type Memory struct {
	CoreRSSBytes           uint64 `json:"core_rss_bytes"`
	CoreAnonBytes          uint64 `json:"core_anon_bytes"`
	CoreRSSPeakBytes       uint64 `json:"core_rss_peak_bytes"`
	SimBytesPerRuntime     uint64 `json:"sim_bytes_per_runtime"`
	SimHeapBytesPerRuntime uint64 `json:"sim_heap_bytes_per_runtime"`
	SimGoroutinesPerRun    int    `json:"sim_goroutines_per_runtime"`
	SimSysBytes            uint64 `json:"sim_sys_bytes"`
}

// Sample is one point of the run's goroutine and memory record.
type Sample struct {
	Seconds      float64 `json:"t_seconds"`
	Goroutines   int     `json:"goroutines"`
	HeapBytes    uint64  `json:"heap_inuse_bytes"`
	CoreRSSBytes uint64  `json:"core_rss_bytes,omitempty"`
	// CoreAnonBytes is the anonymous part of the Core's resident set: its heap and stacks, without
	// the pages of the bbolt file it maps (which grow with the records, not with a leak).
	CoreAnonBytes uint64 `json:"core_anon_bytes,omitempty"`
}

// Check is one verdict on the Core's records.
type Check struct {
	Name     string   `json:"name"`
	OK       bool     `json:"ok"`
	Failures int      `json:"failures,omitempty"`
	Examples []string `json:"examples,omitempty"`
}

// OK reports whether every check passed.
func (r *Report) OK() bool {
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

func check(name string, failures []string) Check {
	c := Check{Name: name, OK: len(failures) == 0, Failures: len(failures)}
	c.Examples = failures[:min(len(failures), 5)]
	return c
}

func dist(ds []time.Duration) Dist {
	if len(ds) == 0 {
		return Dist{}
	}
	slices.Sort(ds)
	at := func(q float64) float64 {
		i := min(len(ds)-1, int(q*float64(len(ds))))
		return ms(ds[i])
	}
	return Dist{N: len(ds), P50: at(0.50), P99: at(0.99), P999: at(0.999), Max: ms(ds[len(ds)-1])}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (r *Report) measureSim(before, after runtime.MemStats, n int) {
	grow := func(a, b uint64) uint64 {
		if b > a {
			return b - a
		}
		return 0
	}
	heap := grow(before.HeapInuse, after.HeapInuse)
	stack := grow(before.StackInuse, after.StackInuse)
	r.Memory.SimHeapBytesPerRuntime = heap / uint64(n)
	r.Memory.SimBytesPerRuntime = (heap + stack) / uint64(n)
	r.Memory.SimGoroutinesPerRun = runtime.NumGoroutine() / n
	r.Memory.SimSysBytes = after.Sys
}

func (d *driver) sampleCore() {
	if d.cfg.CoreMemory == nil {
		return
	}
	if m, err := d.cfg.CoreMemory(); err == nil {
		d.report.Memory.CoreRSSBytes, d.report.Memory.CoreAnonBytes = m.RSS, m.Anon
		d.report.Memory.CoreRSSPeakBytes = max(d.report.Memory.CoreRSSPeakBytes, m.RSS)
	}
}

func (d *driver) sample(ctx context.Context) {
	t0 := time.Now()
	d.sampleAt(t0)
	tk := time.NewTicker(d.cfg.Sample)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
			d.sampleAt(t0)
		}
	}
}

func (d *driver) sampleNow() { d.sampleAt(time.Time{}) }

func (d *driver) sampleAt(t0 time.Time) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s := Sample{Goroutines: runtime.NumGoroutine(), HeapBytes: m.HeapInuse}
	if !t0.IsZero() {
		s.Seconds = time.Since(t0).Seconds()
	} else if n := len(d.report.Samples); n > 0 {
		s.Seconds = -1 // after the drain
	}
	if d.cfg.CoreMemory != nil {
		if m, err := d.cfg.CoreMemory(); err == nil {
			s.CoreRSSBytes, s.CoreAnonBytes = m.RSS, m.Anon
			d.report.Memory.CoreRSSPeakBytes = max(d.report.Memory.CoreRSSPeakBytes, m.RSS)
		}
	}
	d.mu.Lock()
	d.report.Samples = append(d.report.Samples, s)
	d.mu.Unlock()
}

func (r *Report) fill(f *fleet) {
	r.Reconnects = f.n.reconnects.Load()
	r.ConnectErrors = f.n.connectErrors.Load()
	r.Heartbeats = f.n.heartbeats.Load()
	r.HeartbeatErrors = f.n.heartbeatErrors.Load()
	r.WriteErrors = f.n.writeErrors.Load()
	r.Unexpected = f.n.unexpected.Load()
	r.Rejected = f.n.rejected.Load()
	r.Withheld = f.n.withheld.Load()
}

// Flat reports whether the goroutines and memory of the samples taken while Turns ran stayed
// flat: the last third's peak within 25 % (plus a slack) of the first third's peak.
func (r *Report) Flat() Check {
	var s []Sample
	for _, x := range r.Samples {
		if x.Seconds >= 0 {
			s = append(s, x)
		}
	}
	if len(s) < 6 {
		return Check{Name: "goroutines and memory flat (too few samples to say)", OK: true}
	}
	peak := func(xs []Sample, f func(Sample) float64) float64 {
		m := 0.0
		for _, x := range xs {
			m = max(m, f(x))
		}
		return m
	}
	first, last := s[:len(s)/3], s[len(s)-len(s)/3:]
	var failures []string
	for _, m := range []struct {
		name  string
		f     func(Sample) float64
		slack float64
	}{
		{"goroutines", func(x Sample) float64 { return float64(x.Goroutines) }, 200},
		{"simulator heap", func(x Sample) float64 { return float64(x.HeapBytes) }, 16 << 20},
		{"Core anonymous memory", func(x Sample) float64 { return float64(x.CoreAnonBytes) }, 32 << 20},
	} {
		a, b := peak(first, m.f), peak(last, m.f)
		if b > a*1.25+m.slack {
			failures = append(failures, fmt.Sprintf("%s grew from %.0f to %.0f", m.name, a, b))
		}
	}
	return check("goroutines and memory flat (last third's peak within 25 % of the first third's)", failures)
}

// WriteTable prints the report for a terminal.
func (r *Report) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "seed %d; load average %s\n", r.Seed, strings.Join(r.LoadAverage, " → "))
	fmt.Fprintf(w, "runtimes %d, connected %d in %.1fs (%.0f/s); storm drops %d, reconnects %d (%d failed attempts); heartbeats %d (%d failed)\n",
		r.Runtimes, r.Connected, r.ConnectSeconds, r.ConnectRate, r.Kicked, r.Reconnects, r.ConnectErrors, r.Heartbeats, r.HeartbeatErrors)
	fmt.Fprintf(w, "turns requested %d, accepted %d; receipts withheld %d; simulator write errors %d, unexpected frames %d, rejections %d\n",
		r.Requested, r.Accepted, r.Withheld, r.WriteErrors, r.Unexpected, r.Rejected)
	for _, k := range sortedKeys(r.Refused) {
		fmt.Fprintf(w, "  refused %-40s %d\n", k, r.Refused[k])
	}
	for _, k := range sortedKeys(r.Outcomes) {
		fmt.Fprintf(w, "  outcome %-40s %d\n", k, r.Outcomes[k])
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "latency (ms)\tn\tp50\tp99\tp999\tmax\t")
	for _, k := range []string{"api_start_turn", "dispatch_core", "dispatch_runtime", "event_emission", "completion"} {
		d := r.Latency[k]
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t\n", k, d.N, d.P50, d.P99, d.P999, d.Max)
	}
	_ = tw.Flush()
	m := r.Memory
	fmt.Fprintf(w, "memory: Core RSS %s (peak %s; anonymous %s); simulator %s per Runtime (heap %s), %d goroutine(s) per Runtime, Go sys %s\n",
		mib(m.CoreRSSBytes), mib(m.CoreRSSPeakBytes), mib(m.CoreAnonBytes), kib(m.SimBytesPerRuntime), kib(m.SimHeapBytesPerRuntime), m.SimGoroutinesPerRun, mib(m.SimSysBytes))
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "%s %s", mark, c.Name)
		if !c.OK {
			fmt.Fprintf(w, ": %d, e.g. %s", c.Failures, strings.Join(c.Examples, "; "))
		}
		fmt.Fprintln(w)
	}
}

func sortedKeys(m map[string]int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func mib(b uint64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

func kib(b uint64) string { return fmt.Sprintf("%.1f KiB", float64(b)/1024) }

// raiseFileLimit raises the soft limit of open files to the hard one: every Runtime holds a
// socket, and an in-process Core another.
func raiseFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}

func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// ProcessMemory is a process's resident set and its anonymous part.
type ProcessMemory struct{ RSS, Anon uint64 }

// ReadProcessMemory reads VmRSS and RssAnon of a process from /proc (Linux).
func ReadProcessMemory(pid int) (ProcessMemory, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ProcessMemory{}, err
	}
	var m ProcessMemory
	for _, line := range strings.Split(string(raw), "\n") {
		for key, dst := range map[string]*uint64{"VmRSS:": &m.RSS, "RssAnon:": &m.Anon} {
			if rest, ok := strings.CutPrefix(line, key); ok {
				var kb uint64
				if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), "kB"), &kb); err != nil {
					return ProcessMemory{}, fmt.Errorf("/proc/%d/status: %s: %w", pid, line, err)
				}
				*dst = kb * 1024
			}
		}
	}
	if m.RSS == 0 {
		return ProcessMemory{}, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	return m, nil
}

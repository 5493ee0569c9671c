// Command emission-floor measures what `wirecheck load`'s event_emission can be at best on this
// machine: a sender process writes small timestamped frames at the load command's default rate
// over 1,000 loopback TCP connections, and a receiver process reads each on its connection's
// goroutine and hands it to a worker goroutine that stamps its arrival, as the reference Core's
// reader and a Turn's runner do, with no protocol, no store and no work. Its latency percentiles
// are the floor of the Core's: what the kernel's and Go's scheduling cost two processes and two
// hand-offs at the machine's present load (docs/performance.md, "event_emission at load 4").
// The worker also writes each frame back, and the sender times the round trip: the floor of
// dispatch_core, Core's frame to the Runtime and the Runtime's answer back.
//
//	go run ./cmd/emission-floor [-frames 8000] [-conns 1000] [-rate 400]
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"
)

func main() {
	frames := flag.Int("frames", 8000, "frames to send")
	conns := flag.Int("conns", 1000, "connections")
	rate := flag.Int("rate", 400, "frames per second (the load command's default: 1,000 Turns of 12 frames in 30 s)")
	receiver := flag.Bool("receiver", false, "run as the receiving process (the command starts it)")
	flag.Parse()
	var err error
	if *receiver {
		err = receive(*frames)
	} else {
		err = measure(*frames, *conns, *rate)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "emission-floor:", err)
		os.Exit(1)
	}
}

// frameBytes is about a delta frame's size.
const frameBytes = 128

// measure starts the receiver as a child process and sends it the frames.
func measure(frames, conns, rate int) error {
	child := exec.Command(os.Args[0], "-receiver", fmt.Sprint("-frames=", frames))
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		return err
	}
	if err := child.Start(); err != nil {
		return err
	}
	defer child.Process.Kill() //nolint:errcheck // ended already unless a send failed
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		return errors.New("the receiver gave no address")
	}
	cs := make([]net.Conn, conns)
	rtt := newLatencies(frames)
	for i := range cs {
		if cs[i], err = net.Dial("tcp", lines.Text()); err != nil {
			return err
		}
		go readStamps(cs[i], rtt.add) // the echoes: round trips
	}
	buf := make([]byte, frameBytes)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	for i := range frames {
		<-tick.C
		binary.BigEndian.PutUint64(buf, uint64(time.Now().UnixNano()))
		if _, err := cs[i%conns].Write(buf); err != nil {
			return err
		}
	}
	for lines.Scan() {
		fmt.Println("one way:    " + lines.Text())
	}
	line, err := rtt.await(frames)
	if err != nil {
		return err
	}
	fmt.Println("round trip: " + line)
	for _, c := range cs {
		_ = c.Close()
	}
	return child.Wait()
}

// latencies collects the latencies of frames until all have arrived.
type latencies struct {
	mu  sync.Mutex
	lat []time.Duration
	all chan struct{}
	n   int
}

func newLatencies(n int) *latencies {
	return &latencies{lat: make([]time.Duration, 0, n), all: make(chan struct{}), n: n}
}

// add records a frame stamped sent (Unix nanoseconds) arriving now.
func (l *latencies) add(sent int64) {
	d := time.Duration(time.Now().UnixNano() - sent)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lat = append(l.lat, d); len(l.lat) == l.n {
		close(l.all)
	}
}

// await returns the percentiles once every frame has arrived; a lost frame is an error, never a
// hang.
func (l *latencies) await(frames int) (string, error) {
	select {
	case <-l.all:
	case <-time.After(time.Minute + time.Duration(frames)*10*time.Millisecond):
		l.mu.Lock()
		defer l.mu.Unlock()
		return "", fmt.Errorf("%d of %d frames arrived", len(l.lat), frames)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	slices.Sort(l.lat)
	q := func(p float64) float64 {
		return float64(l.lat[int(p*float64(len(l.lat)-1))]) / float64(time.Millisecond)
	}
	return fmt.Sprintf("frames %d  p50 %.3f  p99 %.3f  p999 %.3f  max %.3f ms", len(l.lat), q(0.5), q(0.99), q(0.999), q(1)), nil
}

// readStamps reads frames from c and hands each one's stamp to got, until c ends.
func readStamps(c net.Conn, got func(int64)) {
	r, buf := bufio.NewReader(c), make([]byte, frameBytes)
	for {
		if _, err := io.ReadFull(r, buf); err != nil {
			return
		}
		got(int64(binary.BigEndian.Uint64(buf)))
	}
}

// receive prints its address, then the percentiles of frames' latencies once all have arrived.
// Each frame goes from its connection's reader to a worker, which stamps it and writes it back.
func receive(frames int) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	fmt.Println(ln.Addr())
	oneWay := newLatencies(frames)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			handoff := make(chan int64, 16)
			go func() { // the runner
				buf := make([]byte, frameBytes)
				for sent := range handoff {
					oneWay.add(sent)
					binary.BigEndian.PutUint64(buf, uint64(sent))
					_, _ = c.Write(buf)
				}
			}()
			go func() { // the connection's reader
				defer close(handoff)
				readStamps(c, func(sent int64) { handoff <- sent })
			}()
		}
	}()
	line, err := oneWay.await(frames)
	if err != nil {
		return err
	}
	fmt.Println(line)
	return nil
}

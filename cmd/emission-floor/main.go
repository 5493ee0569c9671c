// Command emission-floor measures what `wirecheck load`'s event_emission can be at best on this
// machine: a sender process writes small timestamped frames at the load command's default rate
// over 1,000 loopback TCP connections, and a receiver process reads each on its connection's
// goroutine and hands it to a worker goroutine that stamps its arrival, as the reference Core's
// reader and a Turn's runner do, with no protocol, no store and no work. Its latency percentiles
// are the floor of the Core's: what the kernel's and Go's scheduling cost two processes and two
// hand-offs at the machine's present load (docs/performance.md, "event_emission at load 4").
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
	for i := range cs {
		if cs[i], err = net.Dial("tcp", lines.Text()); err != nil {
			return err
		}
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
		fmt.Println(lines.Text())
	}
	for _, c := range cs {
		_ = c.Close()
	}
	return child.Wait()
}

// receive prints its address, then the percentiles of frames' latencies once all have arrived.
func receive(frames int) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	fmt.Println(ln.Addr())
	var mu sync.Mutex
	lat := make([]time.Duration, 0, frames)
	all := make(chan struct{})
	arrived := func(sent int64) {
		d := time.Duration(time.Now().UnixNano() - sent)
		mu.Lock()
		defer mu.Unlock()
		if lat = append(lat, d); len(lat) == frames {
			close(all)
		}
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			handoff := make(chan int64, 16)
			go func() { // the runner
				for sent := range handoff {
					arrived(sent)
				}
			}()
			go func() { // the connection's reader
				defer close(handoff)
				r, buf := bufio.NewReader(c), make([]byte, frameBytes)
				for {
					if _, err := io.ReadFull(r, buf); err != nil {
						return
					}
					handoff <- int64(binary.BigEndian.Uint64(buf))
				}
			}()
		}
	}()
	select {
	case <-all:
	case <-time.After(time.Minute + time.Duration(frames)*10*time.Millisecond): // a lost frame, never a hang
		mu.Lock()
		defer mu.Unlock()
		return fmt.Errorf("%d of %d frames arrived", len(lat), frames)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Millisecond) }
	fmt.Printf("frames %d  p50 %.3f  p99 %.3f  p999 %.3f  max %.3f ms\n", len(lat), q(0.5), q(0.99), q(0.999), q(1))
	return nil
}

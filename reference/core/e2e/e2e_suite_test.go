package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	// A bound, not a wait: Eventually returns as soon as what it waits for holds; a load average of 30
	// on two CPUs must not reach it.
	SetDefaultEventuallyTimeout(time.Minute)
	RunSpecs(t, "reference Core end to end")
}

var binary string

var _ = SynchronizedBeforeSuite(func() []byte {
	bin, err := testbin.Build("github.com/wirecheck/wirecheck/cmd/wirecheck")
	Expect(err).NotTo(HaveOccurred())
	return []byte(bin)
}, func(bin []byte) {
	binary = string(bin)
})

// coreProcess is `wirecheck core` running as a child.
type coreProcess struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:PORT
	stderr *syncBuffer
	exited chan struct{}
}

// syncBuffer is the child's stderr, safe to read while the child writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

var listening = regexp.MustCompile(`listening on (http://\S+)`)

func startCore(data string) *coreProcess {
	cmd := exec.Command(binary, "core", "--listen", "127.0.0.1:0", "--data", data, "--log-level", "debug")
	stdout, err := cmd.StdoutPipe()
	Expect(err).NotTo(HaveOccurred())
	p := &coreProcess{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	Expect(cmd.Start()).To(Succeed())
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	go func() { _ = cmd.Wait(); close(p.exited) }()
	select {
	case line := <-lines:
		m := listening.FindStringSubmatch(line)
		Expect(m).NotTo(BeNil(), "unexpected first line %q", line)
		p.base = m[1]
	case <-p.exited:
		Fail("wirecheck core exited at once:\n" + p.stderr.String())
	case <-time.After(time.Minute): // a safety net: the first line is awaited
		Fail("wirecheck core did not start")
	}
	DeferCleanup(p.stop)
	return p
}

func (p *coreProcess) kill() {
	Expect(p.cmd.Process.Signal(syscall.SIGKILL)).To(Succeed())
	Eventually(p.exited, time.Minute).Should(BeClosed())
}

func (p *coreProcess) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// api calls the Core's JSON API.
func (p *coreProcess) api(method, path string, body, out any) int {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		Expect(err).NotTo(HaveOccurred())
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, p.base+path, rd)
	Expect(err).NotTo(HaveOccurred())
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		Expect(json.Unmarshal(raw, out)).To(Succeed(), "%s", raw)
	}
	return resp.StatusCode
}

func (p *coreProcess) register(id string) string {
	var d core.DeviceResponse
	Expect(p.api(http.MethodPost, "/api/v1/devices", core.DeviceRequest{DeviceID: id}, &d)).To(Equal(http.StatusCreated))
	return d.Credential
}

func (p *coreProcess) turn(id string) *store.Turn {
	var t store.Turn
	Expect(p.api(http.MethodGet, "/api/v1/turns/"+id, nil, &t)).To(Equal(http.StatusOK))
	return &t
}

func (p *coreProcess) journal(id string) []store.Event {
	var j []store.Event
	Expect(p.api(http.MethodGet, "/api/v1/turns/"+id+"/journal", nil, &j)).To(Equal(http.StatusOK))
	return j
}

// daemon is a minimal hand-rolled Runtime: bootstrap, dial, heartbeat, then frames by hand.
type daemon struct {
	ws *websocket.Conn
}

func connect(ctx context.Context, base, deviceID, credential string) *daemon {
	body, _ := json.Marshal(proto.BootstrapRequest{DeviceID: deviceID})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+proto.RouteBootstrap, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+credential)
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s", raw)
	var b proto.BootstrapResponse
	Expect(json.Unmarshal(raw, &b)).To(Succeed())
	url := fmt.Sprintf("%s?device_id=%s&version=%s", b.WSURL, deviceID, proto.Version)
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + credential}}})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { _ = ws.CloseNow() })
	d := &daemon{ws: ws}
	caps := proto.MustDeclareCapabilities("preparation", "environment_none")
	d.send(ctx, proto.TypeHeartbeat, "", &proto.HeartbeatPayload{TS: time.Now().Unix(),
		SupportedAgentKinds: []proto.SupportedAgentKind{{Kind: "contract", Available: true, Capabilities: &caps}}})
	return d
}

func (d *daemon) send(ctx context.Context, typ, id string, payload any) {
	raw, err := proto.MustEnvelope(typ, id, payload).Encode()
	Expect(err).NotTo(HaveOccurred())
	Expect(d.ws.Write(ctx, websocket.MessageText, raw)).To(Succeed())
}

func (d *daemon) read(ctx context.Context) proto.Envelope {
	ctx, cancel := context.WithTimeout(ctx, time.Minute) // a safety net: a read waits for the frame
	defer cancel()
	_, raw, err := d.ws.Read(ctx)
	Expect(err).NotTo(HaveOccurred())
	env, err := proto.DecodeEnvelope(raw)
	Expect(err).NotTo(HaveOccurred())
	return env
}

// quiet requires the Core to send nothing for window.
func (d *daemon) quiet(ctx context.Context, window time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, window)
	defer cancel()
	_, raw, err := d.ws.Read(ctx)
	Expect(err).To(HaveOccurred(), "the Core sent %s", raw)
	Expect(strings.Contains(err.Error(), "context deadline exceeded") || ctx.Err() != nil).To(BeTrue(), "%v", err)
}

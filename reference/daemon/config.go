package daemon

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
)

// Config is how a Daemon connects and what it runs.
type Config struct {
	ServerURL  string // Core's base URL, ending in /api/v1
	DeviceID   string
	Credential string // sent only as a Bearer header; never logged
	Harnesses  []harness.Harness
	// WorkspaceDirectory is the daemon's bound workspace; a local_environment must name it.
	WorkspaceDirectory string
	// EnvironmentRoot is the directory of the Environment on disk (package environment), used when
	// a Harness declares local_environment. Empty: a temporary directory, removed when Run returns.
	EnvironmentRoot string
	// EnvironmentID and SessionID fix the Environment's identity. Empty: the daemon adopts the
	// identity of the first runtime_prepare begin it accepts.
	EnvironmentID, SessionID string
	DaemonVersion            string
	Clock                    clock.Clock
	// TransportClock runs the per-frame write deadline (CN-42); default the wall clock. It is a
	// clock of its own so that a virtual advance of Clock cannot cut a write merely in flight.
	TransportClock clock.Clock
	Logger         *slog.Logger
	HTTPClient     *http.Client
	// AdmissionExpiry may lower the 5-minute admission deadline, never raise it.
	AdmissionExpiry time.Duration
	// MaxBackoff bounds the wait between reconnection attempts after transient failures.
	MaxBackoff time.Duration
}

func (c *Config) defaults() {
	if c.Clock == nil {
		c.Clock = clock.Real()
	}
	if c.TransportClock == nil {
		c.TransportClock = clock.Real()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.HTTPClient == nil {
		// Bootstrap is one request per connection attempt: an idle keep-alive connection would only
		// outlive the session that made it.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DisableKeepAlives = true
		c.HTTPClient = &http.Client{Transport: t}
	}
	if c.WorkspaceDirectory == "" {
		c.WorkspaceDirectory = "/workspace"
	}
	if c.DaemonVersion == "" {
		c.DaemonVersion = "wirecheck-reference"
	}
	if c.AdmissionExpiry <= 0 || c.AdmissionExpiry > proto.AdmissionExpiry {
		c.AdmissionExpiry = proto.AdmissionExpiry
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 30 * time.Second
	}
}

package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/agentruntime"
	"github.com/wirecheck/wirecheck/scriptedcore"
)

// Units launches the Runtime under test through the AgentRuntime port: a local process
// (agentruntime.Local) or a container image (agentruntime.Container). The daemon gets the Core URL
// and its device ID as {core_url}/{device_id} in its arguments and as WIRECHECK_CORE_URL /
// WIRECHECK_DEVICE_ID, and its credential only in the environment variable CredentialEnv.
type Units struct {
	RT            agentruntime.Runtime
	Command       string   // local: the executable; container: optional command
	Args          []string // may hold {core_url} and {device_id}
	Image         string   // container image; empty for a local process
	CredentialEnv string   // the variable the daemon reads its credential from
	Credential    string   // this run's credential; reaches the daemon through CredentialEnv only
	Grace         time.Duration
	What          string // Describe
}

func (u *Units) Describe() string { return u.What }
func (u *Units) Remote() bool     { return true }

// Lookup is the LookupEnv the adapter must be built with: it hands the run's credential to the
// daemon under CredentialEnv and nothing else of the suite's environment.
func (u *Units) Lookup(name string) (string, bool) {
	if name == u.CredentialEnv {
		return u.Credential, true
	}
	return "", false
}

func (u *Units) Launch(ctx context.Context, c scriptedcore.Connect) (scriptedcore.Runtime, error) {
	if c.Credential != u.Credential {
		// A handshake scenario launches the daemon with another credential: give that one.
		return u.launchWith(ctx, c, c.Credential)
	}
	return u.launchWith(ctx, c, u.Credential)
}

func (u *Units) launchWith(ctx context.Context, c scriptedcore.Connect, credential string) (scriptedcore.Runtime, error) {
	spec := agentruntime.UnitSpec{
		ID: agentruntime.UnitID(c.DeviceID), Command: u.Command, Args: u.Args, Image: u.Image,
		CoreURL: c.ServerURL, DeviceID: c.DeviceID,
		Env:       map[string]string{},
		SecretEnv: []string{u.CredentialEnv},
		Labels:    map[string]string{"scenario-device": c.DeviceID},
	}
	if credential != u.Credential {
		// The per-unit credential differs from the run's only in rejection scenarios, where it is
		// wrong on purpose and worthless; it still travels by environment, never argv.
		spec.SecretEnv = nil
		spec.Env[u.CredentialEnv] = credential
	}
	id, err := u.RT.Provision(ctx, spec)
	if err != nil {
		return nil, err
	}
	if err := u.RT.Start(ctx, id); err != nil {
		_ = u.RT.Remove(context.WithoutCancel(ctx), id)
		return nil, err
	}
	unit := &unit{rt: u.RT, id: id, grace: u.Grace, done: make(chan struct{})}
	go unit.wait()
	return unit, nil
}

// unit is one launched daemon.
type unit struct {
	rt    agentruntime.Runtime
	id    agentruntime.UnitID
	grace time.Duration
	done  chan struct{}
	mu    sync.Mutex
	exit  *agentruntime.Exit
	once  sync.Once
}

func (u *unit) wait() {
	defer close(u.done)
	e, err := u.rt.Wait(context.Background(), u.id)
	if err == nil {
		u.mu.Lock()
		u.exit = &e
		u.mu.Unlock()
	}
}

func (u *unit) Done() <-chan struct{} { return u.done }

// ExitReason says how the daemon ended and what it printed last.
func (u *unit) ExitReason() string {
	u.mu.Lock()
	e := u.exit
	u.mu.Unlock()
	if e == nil {
		return ""
	}
	why := e.String()
	if lines, err := u.rt.Logs(context.Background(), u.id, 5); err == nil && len(lines) > 0 {
		why += "; last output: " + strings.Join(lines, " | ")
	}
	return why
}

// Stop stops the daemon (SIGTERM, then SIGKILL after the grace) and forgets it.
func (u *unit) Stop(ctx context.Context) error {
	var err error
	u.once.Do(func() {
		grace := u.grace
		if grace <= 0 {
			grace = 5 * time.Second
		}
		err = u.rt.Stop(ctx, u.id, grace)
		select {
		case <-u.done:
		case <-ctx.Done():
		}
		if rerr := u.rt.Remove(context.WithoutCancel(ctx), u.id); rerr != nil && !errors.Is(rerr, agentruntime.ErrNotFound) {
			err = errors.Join(err, rerr)
		}
	})
	return err
}

// SplitCommand splits a command template the way a shell would split simple words: spaces
// separate, single and double quotes group, a backslash escapes the next character.
func SplitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord, quote, escaped := false, rune(0), false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped, inWord = false, true
		case r == '\\' && quote != '\'':
			escaped = true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("command %q: unterminated quote or escape", s)
	}
	if inWord {
		out = append(out, cur.String())
	}
	if len(out) == 0 {
		return nil, errors.New("empty command")
	}
	return out, nil
}

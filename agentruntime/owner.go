package agentruntime

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// LabelOwner names the supervisor process that created a container (Owner.String). A container
// outlives its supervisor by design (Recover adopts it), but one whose supervisor was killed
// before it could remove it (a test binary at its timeout, a certification interrupted by
// SIGKILL) would run on, dialling a Core that is gone; ReapOrphans finds and removes those.
const LabelOwner = "io.wirecheck.owner"

// Owner identifies a process on a host for as long as it runs: the host's name, the kernel's
// boot ID, the process ID and the process's start time after boot (clock ticks), so that a PID
// reused later, or the same PID after a reboot, is not taken for the process.
type Owner struct {
	Host       string
	Boot       string
	PID        int
	StartTicks uint64
}

// String is the label value: host/boot/pid/start.
func (o Owner) String() string {
	return o.Host + "/" + o.Boot + "/" + strconv.Itoa(o.PID) + "/" + strconv.FormatUint(o.StartTicks, 10)
}

// ParseOwner reads a label value written by Owner.String.
func ParseOwner(s string) (Owner, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 4 {
		return Owner{}, fmt.Errorf("owner %q: want host/boot/pid/start", s)
	}
	o := Owner{Host: parts[0], Boot: parts[1]}
	if o.Host == "" || o.Boot == "" {
		return Owner{}, fmt.Errorf("owner %q: empty host or boot ID", s)
	}
	pid, err := strconv.Atoi(parts[2])
	if err != nil || pid <= 0 {
		return Owner{}, fmt.Errorf("owner %q: pid %q is not a positive integer", s, parts[2])
	}
	o.PID = pid
	if o.StartTicks, err = strconv.ParseUint(parts[3], 10, 64); err != nil {
		return Owner{}, fmt.Errorf("owner %q: start %q is not a tick count", s, parts[3])
	}
	return o, nil
}

// Self is the calling process as an Owner.
func Self() (Owner, error) {
	host, err := os.Hostname()
	if err != nil {
		return Owner{}, fmt.Errorf("the host name: %w", err)
	}
	boot, err := bootID()
	if err != nil {
		return Owner{}, err
	}
	p, err := readProc(os.Getpid())
	if err != nil {
		return Owner{}, err
	}
	return Owner{Host: host, Boot: boot, PID: p.pid, StartTicks: p.startTicks}, nil
}

func bootID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", fmt.Errorf("the boot ID: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// Gone reports whether o is known to have ended, as seen by self (Self): o ran on self's host
// and that host has rebooted since, or no process with o's PID and start time runs now. An owner
// on another host is never known to be gone (its processes cannot be seen from here).
func (o Owner) Gone(self Owner) bool {
	if o.Host != self.Host {
		return false
	}
	if o.Boot != self.Boot {
		return true
	}
	p, err := readProc(o.PID)
	return err != nil || p.startTicks != o.StartTicks || p.state == 'Z' || p.state == 'X'
}

// ReapOrphans removes (`rm -f`) every managed container whose supervisor is gone (LabelOwner,
// Owner.Gone): what a killed supervisor left running. Containers without the label, of another
// host, or of a supervisor still running (another suite sharing the engine) are left alone; a
// malformed label is logged and left alone too. It returns the names removed.
func (c *Container) ReapOrphans(ctx context.Context) ([]string, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	self, err := Self()
	if err != nil {
		return nil, err
	}
	out, _, err := c.run(ctx, nil, "ps", "-a", "--filter", "label="+LabelManaged+"=true", "--filter", "label="+LabelOwner, "--format", "{{.Names}}")
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, name := range strings.Fields(out) {
		lo, _, err := c.run(ctx, nil, "inspect", "--format", `{{index .Config.Labels "`+LabelOwner+`"}}`, name)
		switch {
		case isNoSuchContainer(err):
			continue // removed meanwhile
		case err != nil:
			return removed, err
		}
		owner, err := ParseOwner(strings.TrimSpace(lo))
		if err != nil {
			c.log.Warn("container left alone: unreadable owner label", "container", name, "error", err)
			continue
		}
		if !owner.Gone(self) {
			continue
		}
		if _, _, err := c.run(ctx, nil, "rm", "-f", name); err != nil && !isNoSuchContainer(err) {
			return removed, err
		}
		c.log.Warn("removed a container its supervisor left behind", "container", name, "owner", owner.String())
		removed = append(removed, name)
	}
	return removed, nil
}

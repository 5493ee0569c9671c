package agentruntime

import "strconv"

// Hardening is what the container adapter asks the engine to enforce on a unit: the cheap part of
// isolation. A hardened container is contained, not isolated: code written to escape is out of
// scope (that takes a microVM).
type Hardening struct {
	// DropCapabilities: --cap-drop=ALL.
	DropCapabilities bool
	// NoNewPrivileges: --security-opt=no-new-privileges.
	NoNewPrivileges bool
	// ReadOnlyRootfs: --read-only, with a tmpfs on /tmp. The daemon writes to its Workspace.
	ReadOnlyRootfs bool
	// PidsLimit: --pids-limit N when N > 0.
	PidsLimit int
	// Memory and CPUs are opt-in ceilings in engine notation ("512m", "1.5"), passed verbatim. A
	// guessed memory ceiling shows up as a daemon dying under load for no visible reason, so none is
	// set by default.
	Memory string
	CPUs   string
}

// DefaultHardening is cap-drop ALL, no-new-privileges, read-only root with a /tmp tmpfs and a
// pids limit of 512; no memory or CPU ceiling.
func DefaultHardening() Hardening {
	return Hardening{DropCapabilities: true, NoNewPrivileges: true, ReadOnlyRootfs: true, PidsLimit: 512}
}

// NoHardening turns everything off (an escape hatch for daemons that cannot run hardened).
func NoHardening() Hardening { return Hardening{} }

// WithMemory returns h with a memory ceiling.
func (h Hardening) WithMemory(limit string) Hardening { h.Memory = limit; return h }

// WithCPUs returns h with a CPU ceiling.
func (h Hardening) WithCPUs(cpus string) Hardening { h.CPUs = cpus; return h }

// flags are the engine `create` flags that enforce h.
func (h Hardening) flags() []string {
	var f []string
	if h.DropCapabilities {
		f = append(f, "--cap-drop=ALL")
	}
	if h.NoNewPrivileges {
		f = append(f, "--security-opt=no-new-privileges")
	}
	if h.ReadOnlyRootfs {
		f = append(f, "--read-only", "--tmpfs", "/tmp")
	}
	if h.PidsLimit > 0 {
		f = append(f, "--pids-limit", strconv.Itoa(h.PidsLimit))
	}
	if h.Memory != "" {
		f = append(f, "--memory", h.Memory)
	}
	if h.CPUs != "" {
		f = append(f, "--cpus", h.CPUs)
	}
	return f
}

func hardeningOf(spec UnitSpec) Hardening {
	if spec.Hardening == nil {
		return DefaultHardening()
	}
	return *spec.Hardening
}

// Package agentruntime runs a Runtime daemon under test as a managed unit.
//
// wirecheck plays Core against a third-party Runtime daemon. To do that it must launch the daemon,
// restart it, kill it with a chosen signal, freeze it, read what it printed and clean up after it,
// whether the daemon is a local binary or a container image. [Runtime] is that capability (a "port");
// three adapters implement it:
//
//   - [Local] runs the daemon as a child process in its own process group, with an environment built
//     only from the unit spec (the suite's own environment is not inherited), dying with the suite
//     (Pdeathsig), its exit status recorded the moment it happens, stdout and stderr captured to one
//     append-mode file and an in-memory tail. It does not outlive the suite: [Runtime.Recover] reaps
//     orphans recorded in a state directory and answers [Ephemeral].
//   - [Container] drives the docker or podman CLI (no SDK). Labels on the container are the durable
//     record, so a restarted suite adopts what the engine still holds ([Adopted]). Containers are
//     hardened by default (see [Hardening]) and use the host network so the daemon can reach the
//     scripted Core on loopback. Each names its supervisor process ([LabelOwner]), so that
//     [Container.ReapOrphans] removes what a killed supervisor left running.
//   - [Memory] spawns nothing: scripted health transitions and pushed log lines, for testing the
//     suite itself. It plays a durable backend and answers [Adopted].
//
// # Live is not connected
//
// A Runtime daemon is a client: it dials Core and heartbeats. So "healthy" is not something this
// package can probe by itself. [Starting] means the process (or container) is alive; [Connected]
// means it is alive AND the injected [Readiness] probe — the scripted Core's view of a valid
// heartbeat on a current connection — says so. [Exited] carries the exit code, the signal and the
// time of the exit; [Stopped] means the suite stopped it on purpose.
//
// Readiness is a probe the adapter asks (pull), not a mark the suite sets (push): the scripted Core
// holds the one truth about connections, and a probe asked at Health time cannot go stale when the
// daemon is restarted, killed, paused or adopted by a new adapter, where a remembered
// "MarkConnected" would have to be unset at each of those moments, by the right party. There is no
// "disconnected" state: the adapter only samples the probe when asked, so whether a daemon was once
// connected and lost it is the scripted Core's history to tell, not this package's.
//
// # Honest answers
//
// An operation a backend cannot perform returns an [*UnsupportedError] naming what would have to
// change, never a silent no-op; [Ephemeral] is never the same as an empty [Adopted] fleet.
//
// # Secrets
//
// Secrets reach the daemon by environment only, by name ([UnitSpec.SecretEnv]): never in argv,
// never in URLs, and their values are replaced by [Redacted] in every captured log line. Every
// variable the spec reads from the suite's environment must be named by the [EnvAllowlist], which
// denies everything by default.
package agentruntime

package scenarios

import (
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
)

// Profile is the capability profile a Runtime declared for one agent kind in a heartbeat. The zero
// value is an unknown profile: no heartbeat arrived.
type Profile struct {
	Known         bool   // a valid heartbeat arrived
	DaemonVersion string // its daemon_version
	Kind          string // the kind the profile is of
	Advertised    bool   // the heartbeat listed the kind
	Available     bool
	KindVersion   string   // the kind's version member
	Supported     []string // capability names declared true, in proto.CapabilityNames order
	Unsupported   []string // capability names declared false, in the same order
	// Problem says why the profile is unknown when a heartbeat arrived but did not decode.
	Problem string
}

// NotAHeartbeat is ReadHeartbeat's error for a valid frame of another type.
type NotAHeartbeat struct{ Type string }

func (e *NotAHeartbeat) Error() string {
	return fmt.Sprintf("the frame is a %s, not a heartbeat", e.Type)
}

// ReadHeartbeat reads a heartbeat frame (the whole envelope, as it crossed the wire) and the
// profile it declares for kind. It is the one reading of a declaration: the scripted Core judges
// applicability by it while it plays, and a report names the run's profile by it afterwards, from
// the transcript, so the two never read one heartbeat differently. A frame that is not a valid
// heartbeat gives a nil payload, the error (*NotAHeartbeat for a valid frame of another type) and
// an unknown profile whose Problem names it.
func ReadHeartbeat(frame []byte, kind string) (*proto.HeartbeatPayload, Profile, error) {
	p := Profile{Kind: kind}
	f, err := proto.ParseFrame(frame)
	if err == nil && f.Type != proto.TypeHeartbeat {
		err = &NotAHeartbeat{Type: f.Type}
	}
	if err != nil {
		p.Problem = err.Error()
		return nil, p, err
	}
	hb := f.Payload.(*proto.HeartbeatPayload)
	p.Known = true
	p.DaemonVersion = hb.DaemonVersion
	k := hb.Kind(kind)
	if k == nil {
		return hb, p, nil
	}
	p.Advertised, p.Available, p.KindVersion = true, k.Available, k.Version
	for _, name := range proto.CapabilityNames() {
		if v, _ := k.Capabilities.Get(name); v.Supported() {
			p.Supported = append(p.Supported, name)
		} else {
			p.Unsupported = append(p.Unsupported, name)
		}
	}
	return hb, p, nil
}

package scriptedruntime

import (
	"github.com/wirecheck/wirecheck/internal/script"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// stallReading plays stop_reading and resume_reading: the scripted Runtime stops or resumes
// reading its socket, so Core's writes pile up until they block (Core's per-frame write timeout,
// CN-42). One that names Core is the scripted Core's to play.
func stallReading(p *script.Player, st *scenarios.Step) *scenarios.Failure {
	if st.From != proto.Runtime || st.Kind == scenarios.StepAwaitStall {
		return nil // await_stall is the scripted Core's
	}
	if st.Kind == scenarios.StepStopReading {
		p.Conn.StopReading()
	} else {
		p.Conn.ResumeReading()
	}
	return nil
}

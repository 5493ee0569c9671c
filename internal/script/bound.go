package script

import (
	"strings"

	"github.com/wirecheck/wirecheck/scenarios"
)

// RequireBound plays a bound step: the peer that read the frames of st.From requires each named
// placeholder to be bound by now; st.From, which wrote them, has nothing to judge and skips it. A
// name only some $one_of alternative binds is unbound when no frame took that alternative.
func (p *Player) RequireBound(st *scenarios.Step) *scenarios.Failure {
	if st.From == p.Self {
		return nil
	}
	var unbound []string
	for _, name := range st.Names {
		if _, ok := p.B.Get(name); !ok {
			unbound = append(unbound, "${"+name+"}")
		}
	}
	if len(unbound) > 0 {
		return p.Failf(st, "no frame of the %s bound %s: none took the template that binds it", st.From, strings.Join(unbound, ", "))
	}
	return nil
}

package workspace

import (
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// The WS mutants of the write's begin and of the export results' offsets that need more than a
// changed condition. Every body is guarded by mutation.On, a constant false outside the
// wirecheck_mutants build.

// beginMutants rewrites a write's begin p (of the body content) as the WS-16 mutants send it.
func beginMutants(p *proto.WorkspaceWritePayload, content []byte) {
	switch {
	case mutation.On(mutation.WSCoreBeginStepMisnamed):
		p.Step = "start"
	case mutation.On(mutation.WSCoreBeginEnvironmentUppercased):
		p.EnvironmentID = strings.ToUpper(p.EnvironmentID)
	case mutation.On(mutation.WSCoreBeginSessionUppercased):
		p.SessionID = strings.ToUpper(p.SessionID)
	case len(content) > 0 && mutation.On(mutation.WSCoreBeginCarriesData):
		p.Data = content[:min(len(content), proto.TransferChunkBytes)]
	}
}

// exportOffsetWanted is the offset Core takes in export result r after sent archive bytes: sent
// itself, or what the WS-27.3 and WS-28.4 mutants read there.
func exportOffsetWanted(sent int64, r *proto.WorkspaceExportResultPayload) int64 {
	switch {
	case r.Outcome == proto.OutcomeChunk && mutation.On(mutation.WSCoreChunkOffsetAfterData):
		return sent + int64(len(r.Data))
	case r.Outcome == proto.OutcomeCompleted && mutation.On(mutation.WSCoreCompletedOffsetZero):
		return 0
	}
	return sent
}

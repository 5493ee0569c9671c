package daemon

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/wirecheck/wirecheck/internal/mutation/prepshape"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
	"github.com/wirecheck/wirecheck/reference/daemon/rtprepare"
)

// The runtime_prepare mutants (RP) that need more than a changed condition. Every one acts only
// once mutation.On says so, a constant false outside the wirecheck_mutants build.

// laxRule is a shape mutant: the one rule of its clause goes unchecked. served: the payload is
// served as the mutant reads it (its broken member repaired: ignored, normalised, defaulted);
// otherwise as sent.
type laxRule struct {
	point  mutation.Point
	clause string
	served bool
}

var laxRules = []laxRule{
	{mutation.RPStepUnknownAsCommit, "RP-01.1", true},
	{mutation.RPChunkBeginMembersIgnored, "RP-01.2", true},
	{mutation.RPCommitBeginMembersIgnored, "RP-01.3", true},
	{mutation.RPBeginOffsetIgnored, "RP-01.4", true},
	{mutation.RPBeginDataIgnored, "RP-01.5", true},
	{mutation.RPCommitOffsetIgnored, "RP-01.6", true},
	{mutation.RPCommitDataIgnored, "RP-01.7", true},
	{mutation.RPEnvironmentIDUnchecked, "RP-02.1", false},
	{mutation.RPEnvironmentIDCaseInsensitive, "RP-02.2", true},
	{mutation.RPEnvironmentIDNilAccepted, "RP-02.3", false},
	{mutation.RPSessionIDUnchecked, "RP-02.4", false},
	{mutation.RPSessionIDCaseInsensitive, "RP-02.5", true},
	{mutation.RPSessionIDNilAccepted, "RP-02.6", false},
	{mutation.RPActionFromHeader, "RP-03.1", true},
	{mutation.RPExtraHeaderIgnored, "RP-03.3", true},
	{mutation.RPPluginSlot50Accepted, "RP-03.5", false},
	{mutation.RPSlotOutsidePluginIgnored, "RP-03.6", true},
	{mutation.RPCapabilityTypeUnchecked, "RP-04.1", true},
	{mutation.RPCapabilityNameUnchecked, "RP-04.2", false},
	{mutation.RPCapabilityDescriptionUnchecked, "RP-04.3", false},
	{mutation.RPFileOutsideWorkspace, "RP-05.1", false},
	{mutation.RPFileWorkspaceRoot, "RP-05.2", false},
	{mutation.RPFilePathCleaned, "RP-05.3", true},
	{mutation.RPFilePath4097Accepted, "RP-05.5", false},
	{mutation.RPFilePathBackslash, "RP-05.6", false},
	{mutation.RPFilePathControl, "RP-05.7", false},
	{mutation.RPInitActionUnchecked, "RP-06.1", false},
	{mutation.RPEnvOutsideConfigureIgnored, "RP-06.2", true},
	{mutation.RPEnv1001Accepted, "RP-06.4", false},
	{mutation.RPEnvEntryUnchecked, "RP-06.5", false},
	{mutation.RPPackagesOutsideNPMIgnored, "RP-06.6", true},
	{mutation.RPPackagesEmptyAccepted, "RP-06.7", false},
	{mutation.RPPackages1001Accepted, "RP-06.9", false},
	{mutation.RPPackageUnchecked, "RP-06.10", false},
	{mutation.RPSetupCommandUnchecked, "RP-06.11", false},
	{mutation.RPCommandOutsideSetupIgnored, "RP-06.12", true},
	{mutation.RPSetupCwdUnchecked, "RP-06.13", false},
	{mutation.RPSourcesOptional, "RP-07.1", true},
	{mutation.RPSources51Skills, "RP-07.3", false},
	{mutation.RPSources51Plugins, "RP-07.5", false},
	{mutation.RPSources51Directories, "RP-07.7", false},
	{mutation.RPSourceEntryUnchecked, "RP-07.8", false},
	{mutation.RPDirectoryUnclean, "RP-07.9", false},
	{mutation.RPDirectory4097Accepted, "RP-07.11", false},
	{mutation.RPDirectoryRepeatAccepted, "RP-07.12", false},
	{mutation.RPSizeOver50MiBAccepted, "RP-08.2", false},
	{mutation.RPSizeNegativeAccepted, "RP-08.3", false},
	{mutation.RPCapabilitySizeZeroAccepted, "RP-08.4", false},
	{mutation.RPHeaderSizeIgnored, "RP-08.6", true},
	{mutation.RPSHACaseInsensitive, "RP-08.7", true},
	{mutation.RPHeaderSHAIgnored, "RP-08.8", true},
	{mutation.RPChunkOffsetNegativeAsZero, "RP-09.2", true},
	{mutation.RPChunkEmptyAccepted, "RP-09.3", false},
	{mutation.RPChunk65537Accepted, "RP-09.5", false},
	{mutation.RPChunkPast50MiBAccepted, "RP-09.8", false},
}

// laxPrepare is the payload a shape mutant serves for a runtime_prepare that failed decoding:
// one that breaks the mutant's rule and no other. Nil: the frame is refused as it should be.
func laxPrepare(raw json.RawMessage) *proto.RuntimePreparePayload {
	if len(raw) > proto.RuntimePrepareMaxFrameBytes {
		return nil
	}
	var loose proto.RuntimePreparePayload
	if json.Unmarshal(raw, &loose) != nil {
		return base64URLChunk(raw)
	}
	for _, l := range laxRules {
		fixed := prepshape.Fixed(l.clause, &loose)
		if fixed == nil || !mutation.On(l.point) {
			continue
		}
		if l.served {
			return fixed
		}
		return &loose
	}
	return nil
}

// base64URLChunk is RP-09.6's mutant: a chunk whose data is unpadded base64url is decoded all the
// same, and served when that is all it breaks.
func base64URLChunk(raw json.RawMessage) *proto.RuntimePreparePayload {
	var m map[string]json.RawMessage
	var data string
	if json.Unmarshal(raw, &m) != nil || json.Unmarshal(m["data"], &data) != nil {
		return nil
	}
	body, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(data, "="))
	if err != nil {
		return nil
	}
	m["data"], _ = json.Marshal(body)
	fixed, _ := json.Marshal(m)
	var p proto.RuntimePreparePayload
	if json.Unmarshal(fixed, &p) != nil || p.Validate() != nil || !mutation.On(mutation.RPDataBase64URLAccepted) {
		return nil
	}
	return &p
}

// limitRules are the at-limit mutants: a payload exactly on the limit is refused.
var limitRules = []struct {
	point  mutation.Point
	clause string
}{
	{mutation.RPPluginSlot49Refused, "RP-03.4"},
	{mutation.RPFilePath4096Refused, "RP-05.4"},
	{mutation.RPEnv1000Refused, "RP-06.3"},
	{mutation.RPPackages1000Refused, "RP-06.8"},
	{mutation.RPSources50SkillsRefused, "RP-07.2"},
	{mutation.RPSources50PluginsRefused, "RP-07.4"},
	{mutation.RPSources50DirectoriesRefused, "RP-07.6"},
	{mutation.RPDirectory4096Refused, "RP-07.10"},
	{mutation.RPSize50MiBRefused, "RP-08.1"},
	{mutation.RPZeroSizeFileRefused, "RP-08.5"},
	{mutation.RPChunk64KiBRefused, "RP-09.4"},
	{mutation.RPChunkEndingAt50MiBRefused, "RP-09.7"},
}

var errAtLimit = errors.New("runtime_prepare: the limit itself is refused")

// refusedAtLimit is the error an at-limit mutant refuses a valid frame with, or nil.
func refusedAtLimit(env proto.Envelope, p *proto.RuntimePreparePayload) error {
	for _, l := range limitRules {
		if prepshape.AtLimit(l.clause, p) && mutation.On(l.point) {
			return errAtLimit
		}
	}
	// RP-10.1: the whole frame bounded with >=, so exactly 1 MiB is refused.
	if len(env.Payload) > proto.RuntimePrepareMaxFrameBytes-4096 {
		if raw, err := env.Encode(); err == nil && len(raw) >= proto.RuntimePrepareMaxFrameBytes && mutation.On(mutation.RPFrame1MiBRefused) {
			return errAtLimit
		}
	}
	return nil
}

// mutatePrepareEffects bends the machine's answer to a frame that failed decoding (err), under
// router.mu.
func mutatePrepareEffects(r *router, env proto.Envelope, err error, effects []rtprepare.Effect) []rtprepare.Effect {
	if err == nil || errors.Is(err, errAtLimit) {
		return effects
	}
	var loose proto.RuntimePreparePayload
	if json.Unmarshal(env.Payload, &loose) != nil {
		// RP-19.1: a payload that does not decode is closed as it should be, but never answered.
		if mutation.On(mutation.RPUndecodableUnanswered) {
			return slices.DeleteFunc(effects, func(e rtprepare.Effect) bool { _, reply := e.(rtprepare.Reply); return reply })
		}
		return effects
	}
	if loose.Validate() != nil && mutation.On(mutation.PrepareInvalidBeginAccepted) {
		// RP-19.2: a payload that decodes but breaks a wire rule is refused under another code.
		for i, e := range effects {
			if rep, ok := e.(rtprepare.Reply); ok && rep.Result.ErrorCode == proto.CodeInvalidRequest {
				rep.Result.ErrorCode = proto.CodeRuntimePreparationRejected
				effects[i] = rep
			}
		}
	}
	// RP-19.5: a begin refused invalid_request takes the free slot all the same.
	if loose.Step == proto.StepBegin && r.tr.m.Slot == nil && proto.CanonicalUUID(env.ID) && len(effects) == 1 &&
		mutation.On(mutation.RPRefusedBeginHoldsSlot) {
		if _, seen := r.tr.m.Seen[env.ID]; !seen {
			r.tr.m.Slot = &rtprepare.Transfer{ID: env.ID, Phase: rtprepare.Pending}
		}
	}
	return effects
}

// begunOn remembers, per daemon, the connection each transfer was begun on (RP-21.11's mutant).
var begunOn sync.Map // *Daemon → *sync.Map of transfer ID → *router

// rememberTransfer notes a transfer just begun, for the mutant that carries transfers across
// connections.
func (r *router) rememberTransfer(id string) {
	if !mutation.On(mutation.RPTransferOutlivesConnection) {
		return
	}
	m, _ := begunOn.LoadOrStore(r.d, &sync.Map{})
	m.(*sync.Map).Store(id, r)
}

// transferOfEarlierConnection: under RP-21.11's mutant, a chunk or commit naming a transfer begun
// on an earlier connection is taken for an ended transfer and gets no reply (under router.mu).
func (r *router) transferOfEarlierConnection(f rtprepare.Frame) bool {
	if f.Payload == nil || f.Payload.Step == proto.StepBegin {
		return false
	}
	if _, seen := r.tr.m.Seen[f.ID]; seen {
		return false
	}
	m, ok := begunOn.Load(r.d)
	if !ok {
		return false
	}
	owner, ok := m.(*sync.Map).Load(f.ID)
	return ok && owner != r && mutation.On(mutation.RPTransferOutlivesConnection)
}

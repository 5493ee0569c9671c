package gateway

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// The WS mutants of Core's checks of workspace results (scenarios/rules/clauses/WS.tsv): each
// leaves one rule of a result's shape out, or moves one bound by one. They are false in every
// build without the wirecheck_mutants tag.

var errMutantBound = errors.New("refused at its bound (a mutant)")

// workspaceResultAtLimit: the mutants that refuse a valid result at its bound.
func workspaceResultAtLimit(env proto.Envelope, frame *proto.Frame) error {
	switch p := frame.Payload.(type) {
	case *proto.WorkspaceReadResultPayload:
		if d := p.Directory; d != nil && slices.ContainsFunc(d.Entries, func(e proto.DirectoryEntry) bool {
			return len(e.Name) == proto.DirectoryNameMaxBytes
		}) && mutation.On(mutation.WSCoreLongNameRefused) {
			return errMutantBound
		}
	case *proto.WorkspaceExportResultPayload:
		switch {
		case len(env.Payload) == proto.WorkspaceExportMaxFrameBytes && mutation.On(mutation.WSCoreExportPayloadAtLimitRefused),
			p.Outcome == proto.OutcomeChunk && len(p.Data) == 1 && mutation.On(mutation.WSCoreOneByteChunkRefused),
			p.Outcome == proto.OutcomeChunk && len(p.Data) == proto.TransferChunkBytes && mutation.On(mutation.WSCoreFullChunkRefused):
			return errMutantBound
		}
	}
	return nil
}

// lenientWorkspaceResult: the mutants that take an invalid result. perr is why env's payload
// failed; a mutant that does not check the rule it broke returns the frame as if it were valid.
func lenientWorkspaceResult(env proto.Envelope) (*proto.Frame, bool) {
	spec, ok := proto.Lookup(env.Type)
	if !ok || spec.CheckID(env.ID) != nil {
		return nil, false
	}
	decode := func() proto.Validator {
		loose := *spec
		if spec.MaxPayloadBytes > 0 && len(env.Payload) == spec.MaxPayloadBytes+1 && mutation.On(mutation.WSCoreExportPayloadOverLimitAccepted) {
			loose.MaxPayloadBytes++
		}
		v, err := loose.DecodePayload(env.Payload)
		if err == nil {
			return v
		}
		var re *proto.RuleError
		if !errors.As(err, &re) {
			return nil
		}
		if env.Type == proto.TypeWorkspaceReadResult && re.Path == "directory.entries" && mutation.On(mutation.WSCoreNullEntriesAccepted) {
			return listingWithEntries(loose, env.Payload)
		}
		if !strings.Contains(re.Rule, "required") {
			return nil
		}
		switch {
		case strings.HasSuffix(re.Path, "directory.truncated") && mutation.On(mutation.WSCoreMissingTruncatedAccepted),
			strings.HasSuffix(re.Path, ".size_bytes") && mutation.On(mutation.WSCoreMissingSizeAccepted),
			re.Path == "offset" && mutation.On(mutation.WSCoreExportMissingOffsetAccepted):
			v := spec.NewPayload()
			if json.Unmarshal(env.Payload, v) == nil {
				return v
			}
		}
		return nil
	}
	orig, check := decode(), decode()
	if orig == nil {
		return nil, false
	}
	if check.Validate() == nil { // a member the shape layer requires was missing
		return &proto.Frame{Envelope: env, Spec: spec, Payload: orig}, true
	}
	deliver := orig
	switch p := check.(type) {
	case *proto.WorkspaceReadResultPayload:
		if !lenientRead(p) {
			return nil, false
		}
		if p.Outcome == proto.OutcomeRejected && orig.(*proto.WorkspaceReadResultPayload).Outcome != proto.OutcomeRejected {
			deliver = p // an unlisted outcome taken as rejected
		}
	case *proto.WorkspaceWriteResultPayload:
		if !lenientWrite(p) {
			return nil, false
		}
		if p.Outcome == proto.OutcomeRejected && orig.(*proto.WorkspaceWriteResultPayload).Outcome != proto.OutcomeRejected {
			deliver = p
		}
	case *proto.WorkspaceExportResultPayload:
		if !lenientExport(p) {
			return nil, false
		}
		if p.Outcome == proto.OutcomeCompleted && orig.(*proto.WorkspaceExportResultPayload).Outcome != proto.OutcomeCompleted {
			deliver = p
		}
	default:
		return nil, false
	}
	if check.Validate() != nil {
		return nil, false
	}
	return &proto.Frame{Envelope: env, Spec: spec, Payload: deliver}, true
}

// listingWithEntries is the ws-core-null-entries-accepted mutant's decoding: a listing whose
// entries is null or absent is read as an empty one ([]); every other rule is still checked.
func listingWithEntries(spec proto.MessageSpec, raw json.RawMessage) proto.Validator {
	var p map[string]json.RawMessage
	if json.Unmarshal(raw, &p) != nil {
		return nil
	}
	var d map[string]json.RawMessage
	if json.Unmarshal(p["directory"], &d) != nil || d == nil {
		return nil
	}
	d["entries"] = json.RawMessage("[]")
	var err error
	if p["directory"], err = json.Marshal(d); err != nil {
		return nil
	}
	fixed, err := json.Marshal(p)
	if err != nil {
		return nil
	}
	v, err := spec.DecodePayload(fixed)
	if err != nil {
		return nil
	}
	return v
}

func listed(outcome string, set ...string) bool { return slices.Contains(set, outcome) }

// lenientRead fixes p where a WS-03/WS-04 mutant does not check it.
func lenientRead(p *proto.WorkspaceReadResultPayload) bool {
	d := p.Directory
	switch {
	case !listed(p.Outcome, proto.OutcomeCompleted, proto.OutcomeRejected, proto.OutcomeUnknown) && p.ErrorCode != "" &&
		mutation.On(mutation.WSCoreReadFailedAsRejected):
		p.Outcome = proto.OutcomeRejected
		if !proto.KnownReadCode(p.Outcome, p.ErrorCode) {
			p.ErrorCode = proto.CodeNotFound
		}
	case p.Outcome == proto.OutcomeCompleted && d != nil && (len(p.Data) > 0 || p.Truncated) && mutation.On(mutation.WSCoreListingWithDataAccepted):
		p.Data, p.Truncated = nil, false
	case listed(p.Outcome, proto.OutcomeRejected, proto.OutcomeUnknown) && (len(p.Data) > 0 || d != nil || p.Truncated) &&
		mutation.On(mutation.WSCoreRejectedWithDataAccepted):
		p.Data, p.Directory, p.Truncated = nil, nil, false
	case p.Outcome == proto.OutcomeRejected && !proto.KnownReadCode(p.Outcome, p.ErrorCode) && mutation.On(mutation.WSCoreReadUnlistedCodeAccepted):
		p.ErrorCode = proto.CodeNotFound
	case p.Outcome == proto.OutcomeUnknown && p.ErrorCode != proto.CodeReadUnconfirmed && mutation.On(mutation.WSCoreUnknownReadCodeKept):
		p.ErrorCode = proto.CodeReadUnconfirmed
	case p.Outcome == proto.OutcomeCompleted && !p.CloseAcknowledged && mutation.On(mutation.WSCoreCloseUnacknowledgedAccepted):
		p.CloseAcknowledged = true
	case d == nil:
		return false
	default:
		return lenientEntries(d)
	}
	return true
}

// lenientEntries fixes the entries of a listing where a WS-04 mutant does not check them.
func lenientEntries(d *proto.WorkspaceDirectoryResult) bool {
	var fix func(i int, e *proto.DirectoryEntry) bool
	seen := map[string]bool{}
	switch {
	case slices.ContainsFunc(d.Entries, func(e proto.DirectoryEntry) bool { return !oneComponent(e.Name) }) &&
		mutation.On(mutation.WSCoreOddNameAccepted):
		fix = func(i int, e *proto.DirectoryEntry) bool {
			if !oneComponent(e.Name) {
				e.Name = strings.Repeat("n", i+1)
			}
			return true
		}
	case slices.ContainsFunc(d.Entries, func(e proto.DirectoryEntry) bool { return len(e.Name) > proto.DirectoryNameMaxBytes }) &&
		mutation.On(mutation.WSCoreOverlongNameAccepted):
		fix = func(_ int, e *proto.DirectoryEntry) bool {
			if len(e.Name) > proto.DirectoryNameMaxBytes {
				e.Name = e.Name[:proto.DirectoryNameMaxBytes]
			}
			return true
		}
	case slices.ContainsFunc(d.Entries, func(e proto.DirectoryEntry) bool { dup := seen[e.Name]; seen[e.Name] = true; return dup }) &&
		mutation.On(mutation.WSCoreDuplicateNamesAccepted):
		fix = func(i int, e *proto.DirectoryEntry) bool {
			e.Name += "#" + strings.Repeat("d", i+1)
			return true
		}
	case slices.ContainsFunc(d.Entries, func(e proto.DirectoryEntry) bool {
		return !listed(e.Kind, proto.EntryFile, proto.EntryDirectory, proto.EntrySymlink, proto.EntryOther)
	}) && mutation.On(mutation.WSCoreUnknownKindAccepted):
		fix = func(_ int, e *proto.DirectoryEntry) bool {
			if !listed(e.Kind, proto.EntryFile, proto.EntryDirectory, proto.EntrySymlink, proto.EntryOther) {
				e.Kind, e.SizeBytes = proto.EntryOther, nil
			}
			return true
		}
	case slices.ContainsFunc(d.Entries, func(e proto.DirectoryEntry) bool {
		return e.Kind == proto.EntryFile && (e.SizeBytes == nil || *e.SizeBytes < 0)
	}) && mutation.On(mutation.WSCoreNegativeSizeAccepted):
		fix = func(_ int, e *proto.DirectoryEntry) bool {
			if e.Kind == proto.EntryFile && (e.SizeBytes == nil || *e.SizeBytes < 0) {
				zero := int64(0)
				e.SizeBytes = &zero
			}
			return true
		}
	case slices.ContainsFunc(d.Entries, func(e proto.DirectoryEntry) bool { return e.Kind != proto.EntryFile && e.SizeBytes != nil }) &&
		mutation.On(mutation.WSCoreDirectorySizeAccepted):
		fix = func(_ int, e *proto.DirectoryEntry) bool {
			if e.Kind != proto.EntryFile {
				e.SizeBytes = nil
			}
			return true
		}
	default:
		return false
	}
	for i := range d.Entries {
		fix(i, &d.Entries[i])
	}
	return true
}

// oneComponent: a name that is one path component.
func oneComponent(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00\r\n")
}

// lenientWrite fixes p where a WS-17 mutant does not check it.
func lenientWrite(p *proto.WorkspaceWriteResultPayload) bool {
	switch {
	case !listed(p.Outcome, proto.OutcomeReady, proto.OutcomeReceived, proto.OutcomeCompleted, proto.OutcomeRejected, proto.OutcomeUnknown) &&
		p.ErrorCode != "" && mutation.On(mutation.WSCoreWriteFailedAsRejected):
		p.Outcome = proto.OutcomeRejected
		if !proto.KnownWriteCode(p.Outcome, p.ErrorCode) {
			p.ErrorCode = proto.CodeWriteRejected
		}
	case p.Outcome == proto.OutcomeRejected && !proto.KnownWriteCode(p.Outcome, p.ErrorCode) && mutation.On(mutation.WSCoreWriteUnlistedCodeAccepted):
		p.ErrorCode = proto.CodeWriteRejected
	case p.Outcome == proto.OutcomeUnknown && p.ErrorCode != proto.CodeWriteUnconfirmed && mutation.On(mutation.WSCoreUnknownWriteCodeKept):
		p.ErrorCode = proto.CodeWriteUnconfirmed
	case p.Reason != "" && p.ErrorCode != proto.CodeWriteRejected && mutation.On(mutation.WSCoreReasonWithoutWriteRejected):
		p.Reason = ""
	default:
		return false
	}
	return true
}

// lenientExport fixes p where a WS-27 mutant does not check it.
func lenientExport(p *proto.WorkspaceExportResultPayload) bool {
	switch {
	case !listed(p.Outcome, proto.OutcomeChunk, proto.OutcomeCompleted, proto.OutcomeRejected, proto.OutcomeFailed) &&
		len(p.Data) == 0 && p.ErrorCode == "" && mutation.On(mutation.WSCoreExportUnlistedOutcomeCompleted):
		p.Outcome = proto.OutcomeCompleted
	case p.Outcome == proto.OutcomeChunk && len(p.Data) == 0 && mutation.On(mutation.WSCoreEmptyChunkAccepted):
		p.Data = []byte{0}
	case p.Outcome == proto.OutcomeChunk && len(p.Data) > proto.TransferChunkBytes && mutation.On(mutation.WSCoreChunkOverLimitAccepted):
		p.Data = p.Data[:proto.TransferChunkBytes]
	case p.Outcome == proto.OutcomeCompleted && (len(p.Data) > 0 || p.ErrorCode != "") && mutation.On(mutation.WSCoreCompletedWithDataAccepted):
		p.Data, p.ErrorCode = nil, ""
	case listed(p.Outcome, proto.OutcomeRejected, proto.OutcomeFailed) && !proto.KnownExportCode(p.Outcome, p.ErrorCode) &&
		mutation.On(mutation.WSCoreExportUnlistedCodeAccepted):
		if p.Outcome == proto.OutcomeRejected {
			p.ErrorCode = proto.CodeResourceUnavailable
		} else {
			p.ErrorCode = proto.CodeExportFailed
		}
	default:
		return false
	}
	return true
}

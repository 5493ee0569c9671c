//go:build wirecheck_mutants

package mutation

// coreCN are the Core mutants of the CN family written from its clauses
// (scenarios/rules/clauses/CN.tsv), each before the scenario that kills it; their points are in
// points_cn.go.
var coreCN = []Mutant{
	// The bootstrap answer.
	{CNBootstrapAnswerInArray, "CN-01.1", "a bootstrap that passes every check is answered 200 with its answer wrapped in a JSON array instead of a JSON object"},
	{CNBootstrapAnswerWithoutDevice, "CN-01.2", "the bootstrap answer's device_id is empty instead of the device that bootstrapped"},
	{CNBootstrapWSURLHTTP, "CN-01.4", "the bootstrap answer's ws_url keeps the public URL's http:// scheme instead of ws://"},
	{CNBootstrapHeartbeatAsString, "CN-01.6", "the bootstrap answer's heartbeat_seconds is a string (\"15\") instead of an integer"},

	// Refusals of the bootstrap and the upgrade.
	{CNBootstrapRefusalCodeMember, "CN-04.1", "a refused bootstrap's error object carries its code in a code member instead of error"},
	{CNUpgradeRefusalCodeMember, "CN-04.2", "a refused upgrade's error object carries its code in a code member instead of error"},
	{CNUpgradeWithoutDeviceMissingID, "CN-05.1", "an upgrade without device_id is refused 400 missing_device_id (the bootstrap's code) instead of missing_params"},
	{CNUpgradeWithoutVersionIncompat, "CN-05.2", "an upgrade without the version parameter is refused 426 incompatible_version instead of 400 missing_params"},
	{CNBootstrapWithoutBearerParams, "CN-08.1", "a bootstrap without Authorization is refused 400 missing_params (the upgrade's answer) instead of 401 missing_bearer"},
	{CNBootstrapWrongCredentialUnknown, "CN-10.1", "a bootstrap whose credential is not the device's is refused 401 unknown_device instead of bad_credential"},
	{CNOtherMinorAccepted, "CN-14.2", "a well-formed version of another major or minor whose patch is Core's (0.7.0, 1.0.0) is let through to authentication instead of 426"},
	{CNVersionSuffixStripped, "CN-14.4", "a prerelease or build suffix is cut off the version before it is compared (0.11.0-dev is accepted)"},
	{CNVersionTrimmed, "CN-14.5", "the version is trimmed of whitespace before it is compared (\" 0.11.0\" is accepted)"},
	{CNMalformedVersionAccepted, "CN-14.6", "a version that is not three numbers (0.8, 0.8., garbage) is let through to authentication instead of 426: only well-formed ones are compared"},
	{CNEmptyVersionMissingParams, "CN-14.7", "an empty version parameter is refused 400 missing_params, as if it were absent, instead of 426"},

	// The connection.
	{CNRetiredClose1008, "CN-19.1", "a retired device's connection is closed with 1008 instead of 4001"},
	{CNNonObjectFrameCloses, "CN-22.2", "an inbound JSON value that is not an object (an array, a number) closes the connection instead of being skipped"},
	{CNUnknownTypeCloses, "CN-22.3", "an inbound envelope of an unknown type without id closes the connection instead of being dropped"},
	{CNLivenessAt30s, "CN-30.1", "the liveness timeout is 30 s instead of 60 s: a connection silent for 30 s is closed"},
	{CNOversizeFrameRead, "CN-41.2", "Core's read limit is 8 MiB instead of 4 MiB: a frame of 4194305 bytes is read instead of closing 1009"},
	{CNFailedWriteSkipped, "CN-42.3", "a failed write drops its frame and the connection goes on instead of closing the session"},
	{CNDeviceStatusWithoutID, "CN-45.1", "device-status answers device_id empty instead of the device asked about"},
	{CNDeviceStatusNeedsHeartbt, "CN-45.2", "device-status answers online: false for a live connection that has not yet sent a valid heartbeat"},

	// Heartbeats.
	{CNActiveRequestsDefaulted, "CN-25.7", "a heartbeat without active_requests is taken with it as zero"},
	{CNEmptyKindDropped, "CN-25.8", "a heartbeat entry whose kind is empty is dropped and the heartbeat taken"},
	{CNVersionlessKindInvalid, "CN-25.10", "a heartbeat without daemon_version, or with a kind without version, is invalid"},
	{CNNullCapabilitiesKindDropped, "CN-26.3", "a kind whose capabilities is null is dropped from the snapshot and the heartbeat taken"},
	{CNKindlessHeartbeatInvalid, "CN-28.1", "a heartbeat without supported_agent_kinds is invalid: the transport is closed"},
	{CNUnknownHeartbeatMemberInvalid, "CN-28.3", "a heartbeat with a top-level member the payload does not define (claude_available) is invalid"},
	{CNMissingCapabilityDefaulted, "CN-48.1", "a capabilities object missing some of the 30 fields is taken with them false"},

	// Checks no scenario names yet.
	{CNAvailableDefaulted, "CN-25.9", "a heartbeat entry lacking available, or with a non-boolean one, is taken as available: true"},
	{CNHeartbeatNotLiveness, "CN-30.3", "an inbound heartbeat does not restart the 60 s liveness timeout (only other frames do)"},
	{CNOnlyHeartbeatLiveness, "CN-30.4", "only an inbound heartbeat restarts the 60 s liveness timeout: other frames do not"},
	{CNCapabilitiesCarriedOver, "CN-40.5", "a connection that replaces an earlier one starts with the earlier one's capability snapshot instead of none"},
	{CNFrameAtLimitRefused, "CN-41.1", "Core's read limit is one byte short of 4 MiB: an inbound frame of exactly 4194304 bytes costs the connection"},
	{CNNullCapabilityFalse, "CN-48.2", "a capability whose value is null is read as false instead of making the heartbeat invalid"},
	{CNNumericCapabilityRead, "CN-48.3", "a numeric capability value (0, 1) is read as a boolean instead of making the heartbeat invalid"},
	{CNStringCapabilityRead, "CN-48.4", "a string capability value (\"true\") is read as a boolean instead of making the heartbeat invalid"},
	{CNUnavailableKindAdmitted, "CN-50.1", "a kind declared available: false is admitted like an available one"},
	{CNEnvironmentNoneNotRequired, "CN-50.9", "an Environment of type none is admitted without environment_none declared"},

	// Inferred declarations.
	{CNBasicBeforeHeartbeat, "CN-27.1", "before a connection's first valid heartbeat Core takes every kind it has an engine profile for (contract) as declared with that profile's basic capabilities"},
	{CNBasicForUndeclaredKind, "CN-27.3", "a kind Core has an engine profile for (contract) that the latest heartbeat does not declare is filled in with that profile's basic capabilities"},
	{CNKindFromLegacyMember, "CN-28.4", "a heartbeat carrying the legacy claude_available is read as declaring every kind Core has an engine profile for (contract), with that profile's basic capabilities"},

	// A lost connection.
	{CNLostRunsLeftWaiting, "CN-37.1", "a lost connection's Run subscriptions are never ended: their Turns wait on"},
	{CNLostRunsEndCleanly, "CN-37.2", "a lost connection's Run subscriptions end cleanly, as after done: their Turns complete"},
	{CNLostRunEngineFailure, "CN-37.3", "a Run stream lost with its connection is recorded engine_failed (a made-up error) instead of event_stream_incomplete"},
	{CNLostPreparationsWaiting, "CN-38.1", "a lost connection's preparation subscriptions are never ended: their Turns wait on"},
	{CNLostPreparationFailed, "CN-38.2", "a preparation lost with its connection is recorded as if a failed preparation_status had come (preparation_start_failed) instead of preparation_interrupted"},

	// Admission against the declaration, and contract_violation.
	{CNPreparationNotRequired, "CN-50.6", "the table's always row of preparation is skipped: a Turn is admitted on a kind that does not declare preparation"},
	{CNRefusedTurnMovedToOtherKind, "CN-50.33", "a Turn its kind's declaration refuses is moved to another kind of the device that the policy allows"},
	{CNRefusedTurnPreparedFirst, "CN-50.34", "a Turn refused at the final admission check is refused only after its execution_prepare went out"},
	{CNContractViolationUnknown, "CN-51.5", "a prompt_steer_ack contract_violation fails the Turn input_outcome_unknown (an unknown outcome) instead of input_contract_violation"},
}

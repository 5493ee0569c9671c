package mutation

// The decision points of the Core mutants in catalog_cn.go.
const (
	// The bootstrap answer (CN-01).
	CNBootstrapAnswerInArray       Point = "cn-bootstrap-answer-in-array"
	CNBootstrapAnswerWithoutDevice Point = "cn-bootstrap-answer-without-device-id"
	CNBootstrapWSURLHTTP           Point = "cn-bootstrap-ws-url-http"
	CNBootstrapHeartbeatAsString   Point = "cn-bootstrap-heartbeat-seconds-as-string"

	// Refusals of the bootstrap and the upgrade (CN-04, CN-05, CN-08, CN-10, CN-14).
	CNBootstrapRefusalCodeMember      Point = "cn-bootstrap-refusal-code-member"
	CNUpgradeRefusalCodeMember        Point = "cn-upgrade-refusal-code-member"
	CNUpgradeWithoutDeviceMissingID   Point = "cn-upgrade-without-device-id-missing-device-id"
	CNUpgradeWithoutVersionIncompat   Point = "cn-upgrade-without-version-incompatible"
	CNBootstrapWithoutBearerParams    Point = "cn-bootstrap-without-bearer-missing-params"
	CNBootstrapWrongCredentialUnknown Point = "cn-bootstrap-wrong-credential-unknown-device"
	CNOtherMinorAccepted              Point = "cn-other-minor-version-accepted"
	CNVersionSuffixStripped           Point = "cn-version-suffix-stripped"
	CNVersionTrimmed                  Point = "cn-version-trimmed"
	CNMalformedVersionAccepted        Point = "cn-malformed-version-accepted"
	CNEmptyVersionMissingParams       Point = "cn-empty-version-missing-params"

	// The connection (CN-19, CN-22, CN-30, CN-41, CN-42, CN-45).
	CNRetiredClose1008         Point = "cn-retired-close-1008"
	CNNonObjectFrameCloses     Point = "cn-non-object-frame-closes"
	CNUnknownTypeCloses        Point = "cn-unknown-type-closes"
	CNLivenessAt30s            Point = "cn-liveness-at-30s"
	CNOversizeFrameRead        Point = "cn-oversize-frame-read"
	CNFailedWriteSkipped       Point = "cn-failed-write-skipped"
	CNDeviceStatusWithoutID    Point = "cn-device-status-without-device-id"
	CNDeviceStatusNeedsHeartbt Point = "cn-device-status-online-after-heartbeat"

	// Heartbeats (CN-25, CN-26, CN-28, CN-48).
	CNActiveRequestsDefaulted       Point = "cn-active-requests-defaulted"
	CNEmptyKindDropped              Point = "cn-empty-kind-dropped"
	CNVersionlessKindInvalid        Point = "cn-versionless-heartbeat-invalid"
	CNNullCapabilitiesKindDropped   Point = "cn-null-capabilities-kind-dropped"
	CNKindlessHeartbeatInvalid      Point = "cn-kindless-heartbeat-invalid"
	CNUnknownHeartbeatMemberInvalid Point = "cn-unknown-heartbeat-member-invalid"
	CNMissingCapabilityDefaulted    Point = "cn-missing-capability-defaulted"

	// Checks no scenario names yet (CN-25.9, CN-30.3, CN-30.4, CN-40.5, CN-41.1, CN-48, CN-50).
	CNAvailableDefaulted         Point = "cn-available-defaulted"
	CNHeartbeatNotLiveness       Point = "cn-heartbeat-does-not-rearm-liveness"
	CNOnlyHeartbeatLiveness      Point = "cn-only-heartbeat-rearms-liveness"
	CNCapabilitiesCarriedOver    Point = "cn-capabilities-carried-over"
	CNFrameAtLimitRefused        Point = "cn-frame-at-4-mib-refused"
	CNNullCapabilityFalse        Point = "cn-null-capability-read-false"
	CNNumericCapabilityRead      Point = "cn-numeric-capability-read"
	CNStringCapabilityRead       Point = "cn-string-capability-read"
	CNUnavailableKindAdmitted    Point = "cn-unavailable-kind-admitted"
	CNEnvironmentNoneNotRequired Point = "cn-environment-none-not-required"

	// Inferred declarations (CN-27, CN-28).
	CNBasicBeforeHeartbeat   Point = "cn-basic-declaration-before-heartbeat"
	CNBasicForUndeclaredKind Point = "cn-basic-declaration-for-undeclared-kind"
	CNKindFromLegacyMember   Point = "cn-kind-inferred-from-claude-available"

	// A lost connection (CN-37, CN-38).
	CNLostRunsLeftWaiting     Point = "cn-lost-runs-left-waiting"
	CNLostRunsEndCleanly      Point = "cn-lost-runs-end-cleanly"
	CNLostRunEngineFailure    Point = "cn-lost-run-as-engine-failure"
	CNLostPreparationsWaiting Point = "cn-lost-preparations-left-waiting"
	CNLostPreparationFailed   Point = "cn-lost-preparation-as-failed-status"

	// Admission against the declaration (CN-50) and contract_violation (CN-51).
	CNPreparationNotRequired      Point = "cn-preparation-not-required"
	CNRefusedTurnMovedToOtherKind Point = "cn-refused-turn-moved-to-other-kind"
	CNRefusedTurnPreparedFirst    Point = "cn-refused-turn-prepared-first"
	CNContractViolationUnknown    Point = "cn-contract-violation-as-unknown"
)

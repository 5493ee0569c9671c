package mutation

// The decision points of the Core mutants in catalog_su.go.
const (
	SUSuspendIDPerEnvironment     Point = "su-suspend-id-per-environment"
	SUResumeNamesRecordID         Point = "su-resume-names-record-id"
	SUResumeSameConnection        Point = "su-resume-same-connection"
	SUBusyRefusalUnknown          Point = "su-busy-refusal-unknown"
	SUForeignEnvironmentTaken     Point = "su-foreign-environment-taken"
	SUReplyUnknownIDTaken         Point = "su-reply-unknown-id-taken"
	SUOutstandingAtLimitRefused   Point = "su-outstanding-at-limit-refused"
	SUAnsweredStillCounts         Point = "su-answered-still-counts"
	SUResumeUncounted             Point = "su-resume-uncounted"
	SUCloseIsRefusal              Point = "su-close-is-refusal"
	SUResumeCloseIsAck            Point = "su-resume-close-is-ack"
	SUQuiesceResentAfterReconnect Point = "su-quiesce-resent-after-reconnect"
)

// The SU mutants of the request's shape (catalog_su.go), written in W3.2 item 2.
const (
	SUCoreRollbackAsString     Point = "su-core-rollback-as-string"
	SUCoreEnvironmentOmitted   Point = "su-core-environment-omitted"
	SUCoreSuspendIDOmitted     Point = "su-core-suspend-id-omitted"
	SUCoreRequestIDBlank       Point = "su-core-request-id-blank"
	SUCoreQuiesceEnvUppercased Point = "su-core-quiesce-env-uppercased"
	SUCoreQuiesceRollback      Point = "su-core-quiesce-rollback"
	SUCoreReplyJudgedByID      Point = "su-core-reply-judged-by-id"
)

// The SU mutants of the reply's required members (catalog_su.go).
const (
	SUCoreReplyWithoutEnvironmentTaken Point = "su-core-reply-without-environment-taken"
	SUCoreReplyWithoutSuspendIDTaken   Point = "su-core-reply-without-suspend-id-taken"
	SUCoreReplyWithoutAcceptedRefusal  Point = "su-core-reply-without-accepted-refusal"
)

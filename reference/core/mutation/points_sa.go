package mutation

// The decision points of the Core mutants in catalog_sa.go.
const (
	SACoreIncompleteIdentityRecorded     Point = "sa-core-incomplete-identity-recorded"
	SACoreZeroOccurredAtDropped          Point = "sa-core-zero-occurred-at-dropped"
	SACoreIncompleteLifecycleRecorded    Point = "sa-core-incomplete-lifecycle-recorded"
	SACoreTurnNullsDropped               Point = "sa-core-turn-nulls-dropped"
	SACoreIncompleteTurnRecorded         Point = "sa-core-incomplete-turn-recorded"
	SACoreZeroPositionDropped            Point = "sa-core-zero-position-dropped"
	SACoreNegativePositionRecorded       Point = "sa-core-negative-position-recorded"
	SACoreItemPayloadStringified         Point = "sa-core-item-payload-stringified"
	SACoreIncompleteItemRecorded         Point = "sa-core-incomplete-item-recorded"
	SACoreCoordinationNullsDropped       Point = "sa-core-coordination-nulls-dropped"
	SACoreIncompleteCoordinationRecorded Point = "sa-core-incomplete-coordination-recorded"
	SACoreIdentityRepeated               Point = "sa-core-identity-repeated"
	SACoreTurnNotRequiredActive          Point = "sa-core-turn-not-required-active"
	SACoreAfterTerminalRecorded          Point = "sa-core-after-terminal-recorded"
	SACoreOrderBreakFails                Point = "sa-core-order-break-fails"
)

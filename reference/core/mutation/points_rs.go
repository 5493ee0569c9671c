package mutation

// The decision points of the Core mutants in catalog_rs.go.
const (
	RSDeltaTextAliasAccepted         Point = "rs-delta-text-alias-accepted"
	RSDeltaSequenceUnchecked         Point = "rs-delta-sequence-unchecked"
	RSThinkingTextUnchecked          Point = "rs-thinking-text-unchecked"
	RSDoneContentUnchecked           Point = "rs-done-content-unchecked"
	RSDoneMetadataUnchecked          Point = "rs-done-metadata-unchecked"
	RSToolCallIDUnchecked            Point = "rs-tool-call-id-unchecked"
	RSToolResultNotObjectAccepted    Point = "rs-tool-result-not-object-accepted"
	RSObservationStatusUnchecked     Point = "rs-observation-status-unchecked"
	RSObservationTypesUnchecked      Point = "rs-observation-types-unchecked"
	RSDoneUsageAdded                 Point = "rs-done-usage-added"
	RSMissingMeasurementRecordedZero Point = "rs-missing-measurement-recorded-zero"
	RSDoneWithoutUsageForgets        Point = "rs-done-without-usage-forgets-snapshot"
	RSEmptyContentNotFilled          Point = "rs-empty-done-content-not-filled"
	RSModelNotFilled                 Point = "rs-done-model-not-filled"
)

package mutation

// The decision points of the Core mutants in catalog_ds.go.
const (
	DSCoreShutdownNamesDevice        Point = "ds-core-shutdown-names-device"
	DSCoreShutdownEndsRuns           Point = "ds-core-shutdown-ends-runs"
	DSCoreDoneAfterShutdownCancelled Point = "ds-core-done-after-shutdown-cancelled"
	DSCoreLossAfterShutdownCancels   Point = "ds-core-loss-after-shutdown-cancels"
)

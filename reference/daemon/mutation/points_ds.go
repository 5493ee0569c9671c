package mutation

// The decision points of the Runtime mutants in catalog_ds.go.
const (
	DSBodylessShutdownDropped   Point = "ds-bodyless-shutdown-dropped"
	DSReasonlessShutdownDropped Point = "ds-reasonless-shutdown-dropped"
	DSShutdownIDAddressed       Point = "ds-shutdown-id-addressed"
	DSPromptRunsKept            Point = "ds-prompt-runs-kept"
	DSOneRunCancelled           Point = "ds-one-run-cancelled"
	DSDoneBeforeSettlement      Point = "ds-done-before-settlement"
	DSNoEmptyDone               Point = "ds-no-empty-done"
	DSPreparingKept             Point = "ds-preparing-kept"
	DSIdleExecutorsKept         Point = "ds-idle-executors-kept"
	DSReadOnlyPreparationsKept  Point = "ds-read-only-preparations-kept"
	DSShutdownAnswered          Point = "ds-shutdown-answered"
	DSShutdownReceipted         Point = "ds-shutdown-receipted"
	DSFencedShutdownRefused     Point = "ds-fenced-shutdown-refused"
)

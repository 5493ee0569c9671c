package mutation

// The decision points of the Core mutants in catalog_fn.go.
const (
	FNCoreBlankToolName             Point = "fn-core-blank-tool-name"
	FNCoreDeferredWithoutSearch     Point = "fn-core-deferred-without-search"
	FNCoreCallWithoutIDTaken        Point = "fn-core-call-without-id-taken"
	FNCoreCallWithoutNameTaken      Point = "fn-core-call-without-name-taken"
	FNCoreCallWithoutArgumentsTaken Point = "fn-core-call-without-arguments-taken"
	FNCoreResultWithoutDelivery     Point = "fn-core-result-without-delivery"
	FNCoreResultWithoutCallID       Point = "fn-core-result-without-call-id"
	FNCoreFalseSuccessOmitted       Point = "fn-core-false-success-omitted"
	FNCoreEmptyContentNull          Point = "fn-core-empty-content-null"
	FNCoreContentPartsUnchecked     Point = "fn-core-content-parts-unchecked"
)

// The FN mutant of the gateway's routing, written in W3.2 item 2 (catalog_fn.go).
const FNCoreCallRoutedByCallID Point = "fn-core-call-routed-by-call-id"

// The FN mutants of the function tools' shape in the prepare configuration (catalog_fn.go).
const (
	FNCoreEmptyDescriptionOmitted Point = "fn-core-empty-description-omitted"
	FNCoreDeferLoadingAsString    Point = "fn-core-defer-loading-as-string"
)

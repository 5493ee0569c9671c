package mutation

// The decision points of the Runtime mutants in catalog_ad.go.
const (
	ADUnavailableKindAdmitted Point = "ad-unavailable-kind-admitted"
)

package mutation

// The decision points of the Runtime mutants in catalog_in.go.
const ()

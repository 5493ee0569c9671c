package mutation

// The decision points of the Core mutants in catalog_fn.go.
const ()

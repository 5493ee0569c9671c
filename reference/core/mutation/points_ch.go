package mutation

// The decision points of the Core mutants in catalog_ch.go.
const ()

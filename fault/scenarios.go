package fault

import (
	"gopkg.in/yaml.v3"

	"github.com/wirecheck/wirecheck/scenarios"
)

// A scenario's fault step is one rule of this package's schedule language: the scenario loader
// decodes it with ParseRule, once, as it loads the step (scenarios.FaultStep.Rule is a Rule).
func init() {
	scenarios.RegisterFaultDecoder(func(file string, n *yaml.Node) (any, error) { return ParseRule(file, n) })
}

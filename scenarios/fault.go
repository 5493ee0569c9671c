package scenarios

import (
	"errors"

	"gopkg.in/yaml.v3"

	"github.com/wirecheck/wirecheck/internal/yamlstrict"
)

// FaultDecoder decodes the body of a `fault:` step, one rule of the fault schedule language
// (docs/fault-injection.md), from its YAML node. Its error lists each problem at file:line, as a
// yamlstrict.Errors; any other error is placed at the step's line.
type FaultDecoder func(file string, n *yaml.Node) (rule any, err error)

var faultDecoder FaultDecoder

// RegisterFaultDecoder makes the loader decode every fault step with d, once, at load time: a
// broken rule is then a load error at its line, and the model holds the rule (FaultStep.Rule), not
// YAML to decode again wherever it is used. Package fault registers its rule decoder in its init:
// scenarios does not import the relay, and every program that arms faults links it. Without a
// decoder (a program that only reads scenarios) a fault step loads with a nil Rule.
func RegisterFaultDecoder(d FaultDecoder) { faultDecoder = d }

// fault reads the body of a fault step with the registered decoder.
func (p *parser) fault(n *yaml.Node) *FaultStep {
	f := &FaultStep{Pos: p.pos(n)}
	if faultDecoder == nil {
		return f
	}
	rule, err := faultDecoder(p.File, n)
	var errs yamlstrict.Errors
	switch {
	case errors.As(err, &errs):
		p.Errs = append(p.Errs, errs...)
	case err != nil:
		p.Errorf(n.Line, "%v", err)
	default:
		f.Rule = rule
	}
	return f
}

package scenarios

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// A table is a catalog document that stands for one scenario per (operation, state) pair: the
// states a Runtime or Core can be brought into (each by steps of its own), the operations tried in
// them (each by its steps and the answer expected), and for each pair the clauses it checks.
// Every pair must be given its clauses or be excepted with a reason, so a new state or operation
// cannot be added without its row: the operations a busy state must refuse are tried in every
// such state (W3.2), not in the few someone thought of.
//
//	table: busy/runtime                  # the scenarios' ids are busy/runtime/<operation>/in-<state>
//	title: "{operation} while {state}"    # {operation} and {state} are the entries' titles
//	tests: runtime
//	spec: [...]
//	labels: [...]
//	states:
//	  export-running: {title: an export runs, requires: [...], vars: {...}, steps: [...]}
//	operations:
//	  start: {title: an execution_start, requires: [...], vars: {...}, steps: [...]}
//	cells:
//	  start: {export-running: [AD-32.2]}
//	except:
//	  start: {idle: "nothing holds the Environment: the start is served (AD-05)"}
//
// A cell's scenario has the table's spec, labels and tests, the union of both entries' requires
// and vars (a name both define is an error), and the state's steps then the operation's.
func (p *parser) table(n *yaml.Node) []*Scenario {
	f := p.fields(n, "table", "table", "title", "tests", "spec", "labels", "states", "operations", "cells", "except")
	if f == nil {
		return nil
	}
	for _, k := range []string{"table", "title", "states", "operations", "cells"} {
		if f[k] == nil {
			p.Errorf(n.Line, "table: %s is required", k)
			return nil
		}
	}
	id := p.String(f["table"], "table")
	title := p.String(f["title"], "title")
	states := p.tableEntries(f["states"], "states")
	ops := p.tableEntries(f["operations"], "operations")
	cells := p.tablePairs(f["cells"], "cells", ops, states)
	except := p.tablePairs(f["except"], "except", ops, states)
	var out []*Scenario
	for _, op := range ops {
		for _, st := range states {
			cell, excepted := cells[op.name+"/"+st.name], except[op.name+"/"+st.name]
			switch {
			case cell != nil && excepted != nil:
				p.Errorf(cell.Line, "table %s: %s in %s has clauses and an exception: give it one or the other", id, op.name, st.name)
				continue
			case excepted != nil:
				if excepted.Kind != yaml.ScalarNode || strings.TrimSpace(excepted.Value) == "" {
					p.Errorf(excepted.Line, "table %s: the exception of %s in %s needs its reason", id, op.name, st.name)
				}
				continue
			case cell == nil:
				p.Errorf(f["cells"].Line, "table %s: %s in %s has no row: give it the clauses it checks under cells, or a reason under except", id, op.name, st.name)
				continue
			}
			doc := mapping(n.Line,
				"id", scalar(id+"/"+op.name+"/in-"+st.name, f["table"].Line),
				"title", scalar(strings.NewReplacer("{operation}", op.title, "{state}", st.title).Replace(title), f["title"].Line),
				"rules", cell)
			for _, k := range []string{"tests", "spec", "labels"} {
				if f[k] != nil {
					doc.Content = append(doc.Content, scalar(k, f[k].Line), f[k])
				}
			}
			if req := union(st.requires, op.requires); req != nil {
				doc.Content = append(doc.Content, scalar("requires", req.Line), req)
			}
			if vars := p.joinVars(id, st, op); vars != nil {
				doc.Content = append(doc.Content, scalar("vars", vars.Line), vars)
			}
			steps := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: st.steps.Line}
			steps.Content = append(slices.Clone(st.steps.Content), op.steps.Content...)
			doc.Content = append(doc.Content, scalar("steps", steps.Line), steps)
			if sc := p.scenario(doc); sc != nil {
				out = append(out, sc)
			}
		}
	}
	return out
}

// isTable reports whether a document is a table (its first key is table:).
func isTable(n *yaml.Node) bool {
	return n.Kind == yaml.MappingNode && len(n.Content) > 0 && n.Content[0].Value == "table"
}

// tableEntry is one state or operation of a table.
type tableEntry struct {
	name, title    string
	requires, vars *yaml.Node
	steps          *yaml.Node
}

func (p *parser) tableEntries(n *yaml.Node, what string) []tableEntry {
	var out []tableEntry
	for k, v := range p.Members(n, what) {
		if !idRE.MatchString(k.Value) || strings.Contains(k.Value, "/") {
			p.Errorf(k.Line, "%s: %q must be one lowercase segment (it becomes part of scenario ids)", what, k.Value)
		}
		e := p.fields(v, what+"."+k.Value, "title", "requires", "vars", "steps")
		if e == nil {
			continue
		}
		if e["title"] == nil || e["steps"] == nil || e["steps"].Kind != yaml.SequenceNode {
			p.Errorf(v.Line, "%s.%s needs a title and a list of steps", what, k.Value)
			continue
		}
		out = append(out, tableEntry{name: k.Value, title: p.String(e["title"], "title"), requires: e["requires"], vars: e["vars"], steps: e["steps"]})
	}
	if len(out) == 0 {
		p.Errorf(n.Line, "%s: a table needs at least one", what)
	}
	return out
}

// tablePairs reads operation: {state: value} and keys each value by "operation/state".
func (p *parser) tablePairs(n *yaml.Node, what string, ops, states []tableEntry) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n == nil {
		return out
	}
	known := func(es []tableEntry, name string) bool {
		return slices.ContainsFunc(es, func(e tableEntry) bool { return e.name == name })
	}
	for op, row := range p.Members(n, what) {
		if !known(ops, op.Value) {
			p.Errorf(op.Line, "%s: %q is not an operation of the table", what, op.Value)
			continue
		}
		for st, v := range p.Members(row, what+"."+op.Value) {
			if !known(states, st.Value) {
				p.Errorf(st.Line, "%s.%s: %q is not a state of the table", what, op.Value, st.Value)
				continue
			}
			out[op.Value+"/"+st.Value] = v
		}
	}
	return out
}

// joinVars merges the vars of a cell's state and operation; a name both define is an error.
func (p *parser) joinVars(table string, st, op tableEntry) *yaml.Node {
	if st.vars == nil {
		return op.vars
	}
	if op.vars == nil {
		return st.vars
	}
	out := mapping(st.vars.Line)
	out.Content = append(slices.Clone(st.vars.Content), op.vars.Content...)
	for i := 0; i < len(op.vars.Content); i += 2 {
		name := op.vars.Content[i]
		for j := 0; j < len(st.vars.Content); j += 2 {
			if st.vars.Content[j].Value == name.Value {
				p.Errorf(name.Line, "table %s: var %q is set by state %s and by operation %s", table, name.Value, st.name, op.name)
			}
		}
	}
	return out
}

// union is the sequence of the names in a and b, each once; nil if both are nil.
func union(a, b *yaml.Node) *yaml.Node {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: a.Line}
	seen := map[string]bool{}
	for _, n := range append(slices.Clone(a.Content), b.Content...) {
		if !seen[n.Value] {
			seen[n.Value] = true
			out.Content = append(out.Content, n)
		}
	}
	return out
}

func scalar(v string, line int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: line}
}

// mapping builds a mapping node from key, value pairs (a key is a string, a value a node).
func mapping(line int, kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
	for i := 0; i+1 < len(kv); i += 2 {
		m.Content = append(m.Content, scalar(kv[i].(string), line), kv[i+1].(*yaml.Node))
	}
	return m
}

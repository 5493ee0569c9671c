package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

func init() { root.AddCommand(newCoverageCommand()) }

// newCoverageCommand is `wirecheck coverage`: which rules the catalog checks, on which side.
func newCoverageCommand() *cobra.Command {
	var catalogDir, format, target string
	cmd := &cobra.Command{
		Use:   "coverage",
		Short: "Show, per rule family and per rule, the scenarios that check it against a Runtime and against a Core",
		Long: "coverage traces the rules: members of the scenarios to the protocol's numbered rules " +
			"(scenarios/rules/rules.tsv): per family and per rule, the scenarios that check it against a " +
			"Runtime and against a Core, the rules no scenario checks, and the rules no wire observation " +
			"can show, with the reason.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			write, ok := coverageFormats[format]
			if !ok {
				return usageError(fmt.Errorf("--format %q: want text, json or markdown", format))
			}
			var cat *scenarios.Catalog
			var err error
			if catalogDir != "" {
				cat, err = scenarios.LoadDir(catalogDir)
			} else {
				cat, err = scenarios.Embedded()
			}
			if err != nil {
				return err
			}
			switch target {
			case "all":
				return write(cmd.OutOrStdout(), scenarios.ComputeCoverage(cat))
			case "process":
				cov := scenarios.ComputeCoverageFor(cat, playedByTheREADMECommands)
				cov.Target = "process"
				cov.OnlyInProcess = onlyInProcess(scenarios.ComputeCoverage(cat), cov)
				return write(cmd.OutOrStdout(), cov)
			}
			return usageError(fmt.Errorf("--target %q: want all or process", target))
		},
	}
	cmd.Flags().StringVar(&catalogDir, "catalog", "", "load scenarios from this directory instead of the embedded catalog")
	cmd.Flags().StringVar(&format, "format", "text", "text, json or markdown")
	cmd.Flags().StringVar(&target, "target", "all", "all: every scenario of the catalog (the gate plays them against the references in process); "+
		"process: only what the README's certification of a Runtime in another process plays (--label-filter '!hour-timer'; await_stall scenarios are not applicable there)")
	return cmd
}

var coverageFormats = map[string]func(io.Writer, scenarios.Coverage) error{
	"text":     writeCoverageText,
	"json":     writeCoverageJSON,
	"markdown": writeCoverageMarkdown,
}

func writeCoverageJSON(w io.Writer, cov scenarios.Coverage) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(cov)
}

// countsLine is one summary: checked of observable, then per side.
func countsLine(c scenarios.CoverageCounts) string {
	s := fmt.Sprintf("%d/%d rules checked (%s); against a Runtime %d/%d, against a Core %d/%d",
		c.Checked, c.Observable, percent(c.Checked, c.Observable), c.RuntimeChecked, c.RuntimeBound, c.CoreChecked, c.CoreBound)
	if c.Unobservable > 0 {
		s += fmt.Sprintf("; %d unobservable", c.Unobservable)
	}
	return s
}

// clauseLine is one summary of clauses: per side, checked (a mutant killed by a scenario naming
// the clause) of bound, with how many a scenario names and a mutant breaks.
func clauseLine(c scenarios.ClauseCounts) string {
	s := fmt.Sprintf("%d clauses; against a Runtime %d/%d checked (%s; %d named by a scenario, %d broken by a mutant), against a Core %d/%d checked (%s; %d named, %d broken)",
		c.Clauses, c.RuntimeChecked, c.RuntimeBound, percent(c.RuntimeChecked, c.RuntimeBound), c.RuntimeNamed, c.RuntimeMutants,
		c.CoreChecked, c.CoreBound, percent(c.CoreChecked, c.CoreBound), c.CoreNamed, c.CoreMutants)
	if c.Unobservable > 0 {
		s += fmt.Sprintf("; %d unobservable", c.Unobservable)
	}
	if c.Implicit > 0 {
		s += fmt.Sprintf("; %d rules not yet split into clauses", c.Implicit)
	}
	return s
}

func percent(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%d %%", n*100/of)
}

// sideList renders the scenarios of one side; "-" when the rule does not bind that side.
func sideList(binds bool, ids []string) string {
	switch {
	case !binds:
		return "-"
	case len(ids) == 0:
		return "none"
	}
	return strings.Join(ids, ", ")
}

// playedByTheREADMECommands is what the README's certification commands play against a Runtime
// in another process: every Runtime scenario a process can be judged by, the long-timer ones
// beside the rest, but not the two that wait hours (--label-filter '!hour-timer').
func playedByTheREADMECommands(sc *scenarios.Scenario) bool {
	return runner.PlayedAgainstAProcess(sc) && !slices.Contains(sc.Labels, "hour-timer")
}

// onlyInProcess lists the Runtime clauses all checks and process does not: checked only by
// scenarios a certification of a daemon in another process does not play.
func onlyInProcess(all, process scenarios.Coverage) []string {
	var out []string
	for i, f := range all.Families {
		for j, c := range f.Clauses {
			if c.Runtime.Checked() && !process.Families[i].Clauses[j].Runtime.Checked() {
				out = append(out, c.ID)
			}
		}
	}
	return out
}

func writeCoverageText(w io.Writer, cov scenarios.Coverage) error {
	if cov.Target == "process" {
		fmt.Fprintf(w, "Target: a Runtime in another process, as the README's commands certify it (--parallel 8 --label-filter '!hour-timer': the long-timer scenarios beside the rest, the two hour-long ones left out); Core clauses are not certified against a process\n")
		fmt.Fprintf(w, "Runtime clauses checked by the gate in process but by no scenario a process certification plays (%d): %s\n", len(cov.OnlyInProcess), strings.Join(cov.OnlyInProcess, ", "))
	}
	fmt.Fprintf(w, "All families: %s\n", countsLine(cov.CoverageCounts))
	fmt.Fprintf(w, "Clauses: %s\n", clauseLine(cov.ClauseCounts))
	var unchecked, unobservable []scenarios.RuleCoverage
	for _, f := range cov.Families {
		fmt.Fprintf(w, "\n%s %s: %s\n  clauses: %s\n", f.Prefix, f.Name, countsLine(f.CoverageCounts), clauseLine(f.ClauseCounts))
		for _, r := range f.Rules {
			switch {
			case r.Unobservable != "":
				unobservable = append(unobservable, r)
				fmt.Fprintf(w, "  %-6s binds %-7s unobservable\n", r.ID, r.Binds)
			case !r.Checked():
				unchecked = append(unchecked, r)
				fmt.Fprintf(w, "  %-6s binds %-7s NOT CHECKED  %s\n", r.ID, r.Binds, r.Text)
			default:
				fmt.Fprintf(w, "  %-6s binds %-7s runtime: %s\n  %-20s core: %s\n", r.ID, r.Binds,
					sideList(r.BindsRuntime(), r.Runtime), "", sideList(r.BindsCore(), r.Core))
			}
		}
	}
	fmt.Fprintf(w, "\nRules no scenario checks (%d):\n", len(unchecked))
	for _, r := range unchecked {
		fmt.Fprintf(w, "  %s %s\n", r.ID, r.Text)
	}
	fmt.Fprintf(w, "\nRules no wire observation can show (%d):\n", len(unobservable))
	for _, r := range unobservable {
		fmt.Fprintf(w, "  %s %s\n      why: %s\n", r.ID, r.Text, r.Unobservable)
	}
	fmt.Fprintf(w, "\nClauses not checked on a side they bind (no mutant breaking them killed by a scenario naming them):\n")
	for _, f := range cov.Families {
		for _, c := range f.Clauses {
			if c.Unobservable != "" {
				continue
			}
			for _, sd := range []struct {
				name  string
				binds bool
				s     scenarios.SideClause
			}{{"runtime", c.BindsRuntime(), c.Runtime}, {"core", c.BindsCore(), c.Core}} {
				if sd.binds && !sd.s.Checked() {
					fmt.Fprintf(w, "  %-8s %-7s %s\n", c.ID, sd.name, uncheckedWhy(sd.s))
				}
			}
		}
	}
	return nil
}

// uncheckedWhy says what an unchecked clause lacks on one side.
func uncheckedWhy(s scenarios.SideClause) string {
	switch {
	case len(s.Mutants) == 0 && len(s.Scenarios) == 0:
		return "no mutant, no scenario"
	case len(s.Mutants) == 0:
		return "no mutant (named by " + strings.Join(s.Scenarios, ", ") + ")"
	case len(s.Scenarios) == 0:
		return "no scenario names it (mutants " + strings.Join(s.Mutants, ", ") + ")"
	}
	return "its mutants (" + strings.Join(s.Mutants, ", ") + ") were not killed by a scenario naming it"
}

func writeCoverageMarkdown(w io.Writer, cov scenarios.Coverage) error {
	fmt.Fprintf(w, "# Rule coverage\n\nAll families: %s.\n\nClauses: %s.\n\n", countsLine(cov.CoverageCounts), clauseLine(cov.ClauseCounts))
	fmt.Fprintln(w, "| family | checked | against a Runtime | against a Core | unobservable |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for _, f := range cov.Families {
		fmt.Fprintf(w, "| %s %s | %d/%d | %d/%d | %d/%d | %d |\n", f.Prefix, f.Name, f.Checked, f.Observable,
			f.RuntimeChecked, f.RuntimeBound, f.CoreChecked, f.CoreBound, f.Unobservable)
	}
	for _, f := range cov.Families {
		fmt.Fprintf(w, "\n## %s %s\n\n| rule | binds | against a Runtime | against a Core |\n| --- | --- | --- | --- |\n", f.Prefix, f.Name)
		for _, r := range f.Rules {
			runtime, core := sideList(r.BindsRuntime(), r.Runtime), sideList(r.BindsCore(), r.Core)
			if r.Unobservable != "" {
				runtime, core = "unobservable: "+r.Unobservable, "-"
			}
			fmt.Fprintf(w, "| %s %s | %s | %s | %s |\n", r.ID, mdCell(r.Text), r.Binds, mdCell(runtime), mdCell(core))
		}
	}
	return nil
}

// mdCell keeps a table cell on its row.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

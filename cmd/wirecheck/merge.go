package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/reports"
)

// mergeFlags are the flags of `wirecheck merge`.
type mergeFlags struct {
	junit, json, md, html string
	specDirs              []string
	signKey               string
}

func init() {
	var f mergeFlags
	cmd := &cobra.Command{
		Use:   "merge OUT SHARD_DIR...",
		Short: "Combine the evidence bundles of the N shards of one certification into one report",
		Long: `merge combines the evidence bundles written by ` + "`wirecheck certify --shard K/N --bundle SHARD_DIR`" + `
on N machines into the bundle OUT (a new or empty directory) of the whole certification: every
report (JSON, JUnit, Markdown, HTML), the transcripts and daemon logs, and a manifest of their
SHA-256, with one verdict, the one a single run of the whole selection would give. Each shard's
journals are copied byte for byte, their anchors signed as the shard signed them; with
--sign-key, merge signs OUT's manifest.json (manifest.json.sig), else it is left unsigned and merge
says so.

Each SHARD_DIR is checked against its manifest.json (a file changed after its run is refused),
and its report.json is read and checked against the shard's journals (a case whose verdict its
journal does not hold is refused): the other reports are rendered again from it, never spliced. merge
refuses, naming the file and the member, shards of different catalogs (shard.catalog_digest) or
selections (shard.selection_digest, selection), of a different tool, wire version, target or
declared profile, split in a different N; a shard given twice or missing; a scenario present in
two shards. Shards certified with different seeds merge; the report lists each shard's seed.

Exit status (as certify's):
  0  certified: every applicable scenario of every shard passed
  1  not certified
  2  harness error in some shard, and nothing to blame on the daemon
  3  the shards cannot be merged, or a report cannot be written where asked`,
		Example: `  wirecheck merge certified shard-1 shard-2 shard-3 --junit junit.xml --html report.html
  wirecheck merge certified shards/* --sign-key signing.pem`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageError(errors.New("give OUT, then every shard's bundle directory"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runMerge(cmd, &f, args[0], args[1:]) },
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	fl := cmd.Flags()
	fl.StringVar(&f.junit, "junit", "", "also write the merged JUnit XML report to this file")
	fl.StringVar(&f.json, "json", "", "also write the merged JSON report to this file")
	fl.StringVar(&f.md, "markdown", "-", "write the merged Markdown summary to this file (- for standard output, empty for none)")
	fl.StringVar(&f.html, "html", "", "also write the merged HTML report to this file")
	fl.StringVar(&f.signKey, "sign-key", "", "sign OUT's manifest.json with this ed25519 private key (PEM PKCS #8); `wirecheck verify --pubkey` checks it")
	fl.StringArrayVar(&f.specDirs, "spec", nil, "a directory holding the files the scenarios cite, repeatable: the HTML report then quotes every cited section")
	root.AddCommand(cmd)
}

func runMerge(cmd *cobra.Command, f *mergeFlags, out string, dirs []string) error {
	outputs := []output{{"junit", f.junit}, {"json", f.json}, {"html", f.html}, {"markdown", f.md}}
	problems := []error{checkOutputs(outputs, "")}
	if err := checkEmptyDir(out); err != nil {
		problems = append(problems, fmt.Errorf("OUT %s: %w", out, err))
	}
	var key ed25519.PrivateKey
	if f.signKey != "" {
		var err error
		if key, err = readSignKey(f.signKey); err != nil {
			problems = append(problems, err)
		}
	}
	if err := errors.Join(problems...); err != nil {
		return usageError(err)
	}
	merged, err := mergeBundles(dirs)
	if err != nil {
		return usageError(err)
	}
	merged.SpecDirs = f.specDirs
	p := reportPaths{junit: f.junit, json: f.json, html: f.html, md: f.md, bundle: out, signKey: key}
	if err := writeReports(cmd.OutOrStdout(), merged, p); err != nil {
		return &exitError{code: reports.ExitHarnessError, err: fmt.Errorf("writing the reports: %w", err)}
	}
	errOut := cmd.ErrOrStderr()
	fmt.Fprintf(errOut, "wirecheck merge: %d shards, %d scenarios, into %s\n", len(dirs), len(merged.Cases), out)
	if key == nil {
		fmt.Fprintf(errOut, "wirecheck merge: %s/%s is not signed (give --sign-key to sign it)\n", out, reports.BundleManifest)
	} else {
		fmt.Fprintf(errOut, "wirecheck merge: %s/%s signed by key %s\n", out, reports.BundleManifest, journal.KeyID(key.Public().(ed25519.PublicKey)))
	}
	if err := reports.WriteCauses(errOut, merged); err != nil {
		return &exitError{code: reports.ExitHarnessError, err: err}
	}
	fmt.Fprintln(errOut, merged.ProfileLine())
	if code := merged.ExitCode(); code != reports.ExitCertified {
		return &exitError{code: code, err: errors.New("not certified")}
	}
	return nil
}

// mergeBundles reads every shard's bundle and merges them; a directory given twice is refused
// here, where both names are still known.
func mergeBundles(dirs []string) (*reports.Run, error) {
	seen := map[string]string{}
	var shards []reports.ShardRun
	for _, dir := range dirs {
		abs, _ := filepath.Abs(dir)
		if other, ok := seen[abs]; ok {
			return nil, fmt.Errorf("%s: given twice (also as %s)", dir, other)
		}
		seen[abs] = dir
		run, err := reports.ReadBundle(dir)
		if err != nil {
			return nil, err
		}
		shards = append(shards, reports.ShardRun{File: filepath.Join(dir, reports.BundleJSON), Run: run})
	}
	return reports.Merge(shards)
}

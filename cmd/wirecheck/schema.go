package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/schema"
)

func init() {
	var out string
	cmd := &cobra.Command{
		Use:   "schema [TYPE]",
		Short: "Print the JSON Schema of a message type (or `scenario`), or write them all with --out",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out != "" {
				if err := os.MkdirAll(out, 0o755); err != nil {
					return err
				}
				n := 0
				err := fs.WalkDir(schema.Files, ".", func(p string, d fs.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					data, err := fs.ReadFile(schema.Files, p)
					if err != nil {
						return err
					}
					n++
					return os.WriteFile(filepath.Join(out, p), data, 0o644)
				})
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %d files and scenario.schema.json to %s\n", n, out)
				return os.WriteFile(filepath.Join(out, "scenario.schema.json"), scenarios.ScenarioSchema, 0o644)
			}
			if len(args) == 0 {
				data, err := fs.ReadFile(schema.Files, "index.json")
				if err != nil {
					return err
				}
				_, err = cmd.OutOrStdout().Write(data)
				return err
			}
			if args[0] == "scenario" {
				_, err := cmd.OutOrStdout().Write(scenarios.ScenarioSchema)
				return err
			}
			data, err := fs.ReadFile(schema.Files, args[0]+".json")
			if err != nil {
				return fmt.Errorf("no schema for %q (see `wirecheck schema` for the index)", args[0])
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write every schema into this directory")
	root.AddCommand(cmd)
}

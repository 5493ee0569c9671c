package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/proto"
)

func init() {
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the wirecheck build and the wire version it speaks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			build := "(devel)"
			if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
				build = info.Main.Version
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wirecheck %s\nwire version %s\n", build, proto.Version)
			return nil
		},
	})
}

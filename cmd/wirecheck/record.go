package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/monitor"
)

func init() {
	var conn int
	var id, title, out string
	cmd := &cobra.Command{
		Use:   "record CAPTURE --id ID [--conn N] [-o FILE]",
		Short: "Turn one connection of a monitor capture into a scenario that plays it again",
		Long: `record reads a capture written by wirecheck monitor --capture and writes a scenario (YAML) that
plays one connection's conversation again against a Runtime: Core's frames as core steps, the
Runtime's as the runtime steps it must send again, heartbeats left to the player. Every value a
peer chose (envelope ids, handles, executors, expiries, session, run, delivery and input IDs)
becomes a placeholder, the same wherever the value appears. Put the file in a directory and play
it: wirecheck run --catalog DIR --run ID (or wirecheck certify --catalog DIR ...). A capture with
several connections needs --conn.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fh, err := os.Open(args[0])
			if err != nil {
				return usageError(err)
			}
			defer fh.Close()
			frames, err := monitor.ReadCapture(fh)
			if err != nil {
				return usageError(err)
			}
			var conns []int
			for _, f := range frames {
				if !slices.Contains(conns, f.Conn) {
					conns = append(conns, f.Conn)
				}
			}
			if conn == 0 {
				if len(conns) != 1 {
					return usageError(fmt.Errorf("the capture holds connections %v: choose one with --conn", conns))
				}
				conn = conns[0]
			}
			frames = slices.DeleteFunc(frames, func(f monitor.Captured) bool { return f.Conn != conn })
			if len(frames) == 0 {
				return usageError(fmt.Errorf("the capture holds no frame of connection %d (it holds %v)", conn, conns))
			}
			if title == "" {
				title = fmt.Sprintf("recorded from connection %d of %s", conn, args[0])
			}
			yml, err := monitor.Record(id, title, frames)
			if err != nil {
				return err
			}
			if out == "" {
				_, err = cmd.OutOrStdout().Write(yml)
				return err
			}
			return os.WriteFile(out, yml, 0o644)
		},
	}
	f := cmd.Flags()
	f.IntVar(&conn, "conn", 0, "the connection to record (required when the capture holds several)")
	f.StringVar(&id, "id", "", "the scenario's id, e.g. recorded/my-turn (required)")
	f.StringVar(&title, "title", "", "the scenario's title")
	f.StringVarP(&out, "output", "o", "", "write the scenario here instead of stdout")
	_ = cmd.MarkFlagRequired("id")
	root.AddCommand(cmd)
}

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/reference/core"
)

func init() {
	var listen, data, publicURL, logLevel string
	cmd := &cobra.Command{
		Use:   "core --listen ADDR --data FILE",
		Short: "Serve the reference Core: the daemon routes and a small JSON API for devices and Turns",
		Long: `Serve the reference Core.

The daemon routes are under /api/v1/agent-daemon/ (bootstrap, device-status, ws). The JSON API:

  POST /api/v1/devices             {"device_id"?}  → {"device_id", "credential"} (shown once)
  GET  /api/v1/devices/{id}        → {"device_id", "online", "capabilities"}
  POST /api/v1/turns               {"device_id", "configuration", "environment", "input"} → {"turn_id", "run_id", "session_id"}
  GET  /api/v1/turns/{id}          → the Turn record and, once recorded, its outcome
  GET  /api/v1/turns/{id}/journal  → the Turn's journal
  POST /api/v1/turns/{id}/cancel   → 202

Records live in the bbolt file --data; a restarted Core keeps every record it committed and settles
Turns it finds in flight as failed/execution_interrupted. The ws_url given to daemons derives from
--public-url (default: http:// and the listening address), never from request headers.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			spareProcs()
			if data == "" {
				return errors.New("--data FILE is required")
			}
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return fmt.Errorf("--log-level: %w", err)
			}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return err
			}
			base := "http://" + ln.Addr().String()
			if publicURL == "" {
				publicURL = base
			}
			c, err := core.Open(core.Config{DataFile: data, PublicURL: publicURL, Logger: log})
			if err != nil {
				_ = ln.Close()
				return err
			}
			for _, f := range c.Reconciled {
				log.Warn("settled a Turn left in flight by a previous process", "turn_id", f.TurnID, "phase", f.Phase)
			}
			srv := &http.Server{Handler: c.Handler(), ReadHeaderTimeout: 10 * time.Second}
			served := make(chan error, 1)
			go func() { served <- srv.Serve(ln) }()
			fmt.Fprintf(cmd.OutOrStdout(), "wirecheck core listening on %s (data %s)\n", base, data)

			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			select {
			case <-ctx.Done():
				log.Info("shutting down")
			case err := <-served:
				_ = c.Close()
				return err
			}
			cerr := c.Close()
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
			return cerr
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks one)")
	cmd.Flags().StringVar(&data, "data", "", "bbolt file of the durable records (created if missing)")
	cmd.Flags().StringVar(&publicURL, "public-url", "", "Core's public base URL, from which ws_url derives (default http://LISTEN)")
	cmd.Flags().StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	root.AddCommand(cmd)
}

// spareProcs gives the Core twice as many Ps as CPUs (at least 4) unless GOMAXPROCS is set. Every
// commit of its store blocks an OS thread in fdatasync for about a millisecond, and the goroutine
// in that syscall holds its P until the scheduler takes it back; with one P per CPU the gateway's
// readers and the Turns' runners meanwhile share what is left. With spare Ps they keep running:
// at 1,000 concurrent Runs on 2 CPUs, event emission p99 fell from 3.9–4.9 ms to 1.8–2.1 ms
// (docs/performance.md, "Many Runtimes on one Core").
func spareProcs() {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	if n := max(2*runtime.NumCPU(), 4); n > runtime.GOMAXPROCS(0) {
		runtime.GOMAXPROCS(n)
	}
}

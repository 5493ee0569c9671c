package load_test

import (
	"context"
	"net/http"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/load"
)

func TestProfTmp(t *testing.T) {
	if os.Getenv("PROF") == "" {
		t.Skip()
	}
	base := referenceCore(t)
	f, _ := os.Create("/tmp/cpu.prof")
	pprof.StartCPUProfile(f)
	rep, err := load.Run(context.Background(), load.Config{CoreURL: base, Runtimes: 1000, Rate: 300, Turns: 3000, Duration: time.Minute, Hold: 4 * time.Second, Events: 4, Seed: 1, Register: load.APIRegistrar(base, http.DefaultClient), Log: os.Stdout})
	pprof.StopCPUProfile()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	rep.WriteTable(os.Stdout)
}

package runner_test

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/runner"
)

// The daemon's environment is exactly what wirecheck gives it (the Core URL, the device, the
// credential) and what was asked for: a variable passed from wirecheck's own environment and one
// set to a value, kept as written. Nothing else of the caller's environment leaks.
func TestDaemonSeesExactlyTheEnvironmentPassed(t *testing.T) {
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program on this machine")
	}
	t.Setenv("WIRECHECK_TEST_PASSED", "from the caller")
	t.Setenv("WIRECHECK_TEST_NOT_PASSED", "must not leak")
	units, err := runner.Command(env, runner.DaemonOptions{Credential: "wck_env_test",
		Env:     map[string]string{"LOG_LEVEL": "debug ${HOME} $PATH"},
		PassEnv: []string{"WIRECHECK_TEST_PASSED"}})
	if err != nil {
		t.Fatal(err)
	}
	defer units.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rt, err := units.Launch(ctx, runner.Connect{ServerURL: "http://127.0.0.1:9/api/v1", DeviceID: "env-device", Credential: "wck_env_test"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-rt.Done():
	case <-ctx.Done():
		t.Fatal("env did not exit")
	}
	if err := rt.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	got := rt.(runner.Reporter).Report().Output
	slices.Sort(got)
	want := []string{
		"LOG_LEVEL=debug ${HOME} $PATH",
		"WIRECHECK_CORE_URL=http://127.0.0.1:9/api/v1",
		"WIRECHECK_CREDENTIAL=[REDACTED]", // it was there; its value never reaches a log
		"WIRECHECK_DEVICE_ID=env-device",
		"WIRECHECK_TEST_PASSED=from the caller",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the daemon's environment:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// Without --env the daemon gets nothing of the caller's environment but its credential.
func TestDaemonEnvironmentIsTheAllowlistByDefault(t *testing.T) {
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program on this machine")
	}
	units, err := runner.Command(env, runner.DaemonOptions{Credential: "wck_env_test"})
	if err != nil {
		t.Fatal(err)
	}
	defer units.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rt, err := units.Launch(ctx, runner.Connect{ServerURL: "http://127.0.0.1:9/api/v1", DeviceID: "env-device", Credential: "wck_env_test"})
	if err != nil {
		t.Fatal(err)
	}
	<-rt.Done()
	_ = rt.Stop(ctx)
	var names []string
	for _, kv := range rt.(runner.Reporter).Report().Output {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	slices.Sort(names)
	if want := []string{"WIRECHECK_CORE_URL", "WIRECHECK_CREDENTIAL", "WIRECHECK_DEVICE_ID"}; !slices.Equal(names, want) {
		t.Fatalf("the daemon's environment holds %v, want only %v", names, want)
	}
}

// An environment that would carry a credential, override what the daemon is given, or pass a
// variable wirecheck does not have is refused before anything is launched.
func TestDaemonEnvironmentRefusals(t *testing.T) {
	t.Setenv("WIRECHECK_TEST_SET", "x")
	for name, o := range map[string]runner.DaemonOptions{
		"the credential's variable":     {PassEnv: []string{"WIRECHECK_CREDENTIAL"}},
		"a renamed credential variable": {CredentialEnv: "MY_TOKEN", Env: map[string]string{"MY_TOKEN": "x"}},
		"the Core URL":                  {Env: map[string]string{"WIRECHECK_CORE_URL": "http://elsewhere"}},
		"the device":                    {PassEnv: []string{"WIRECHECK_DEVICE_ID"}},
		"an unset variable":             {PassEnv: []string{"WIRECHECK_TEST_SURELY_UNSET"}},
		"a name that is not one":        {Env: map[string]string{"NOT-A-NAME": "x"}},
		"a name given twice":            {Env: map[string]string{"WIRECHECK_TEST_SET": "y"}, PassEnv: []string{"WIRECHECK_TEST_SET"}},
	} {
		if u, err := runner.Command("env", o); err == nil {
			u.Close()
			t.Errorf("%s: accepted", name)
		}
	}
}

// A daemon command that is not an executable is found before the first scenario.
func TestCheckFindsAMissingDaemon(t *testing.T) {
	for cmdline, ok := range map[string]bool{
		"env":                           true,
		"wirecheck-surely-not-on-path":  false,
		"/nonexistent/bin/daemon --x y": false,
		"./relative/missing-daemon":     false,
	} {
		u, err := runner.Command(cmdline, runner.DaemonOptions{})
		if err != nil {
			t.Fatal(err)
		}
		err = u.Check(context.Background())
		u.Close()
		if (err == nil) != ok {
			t.Errorf("%q: Check = %v", cmdline, err)
		}
	}
}

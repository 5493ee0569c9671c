package agentruntime

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

var (
	unitIDPattern  = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,127}$`)
	envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// reservedLabelPrefix marks the labels the container adapter owns.
const reservedLabelPrefix = "io.wirecheck."

// LookupFunc reads a variable from the suite's environment; os.LookupEnv by default.
type LookupFunc func(name string) (string, bool)

func lookupOrDefault(f LookupFunc) LookupFunc {
	if f == nil {
		return os.LookupEnv
	}
	return f
}

// validateSpec checks what every adapter needs from a spec, then the allowlist: every ${NAME}
// referenced in Command, Args or Env values, and every SecretEnv name, must be allowed. All
// offenders are named in one error.
func validateSpec(spec UnitSpec, allow EnvAllowlist) error {
	bad := func(field, format string, a ...any) error {
		return &SpecError{ID: spec.ID, Field: field, Reason: fmt.Sprintf(format, a...)}
	}
	if !unitIDPattern.MatchString(string(spec.ID)) {
		return bad("ID", "%q must match %s", spec.ID, unitIDPattern)
	}
	secrets := map[string]bool{}
	for _, n := range spec.SecretEnv {
		switch {
		case !envNamePattern.MatchString(n):
			return bad("SecretEnv", "%q is not a variable name", n)
		case secrets[n]:
			return bad("SecretEnv", "%s is listed twice", n)
		case n == EnvCoreURL || n == EnvDeviceID:
			return bad("SecretEnv", "%s is set by the adapter", n)
		}
		if _, ok := spec.Env[n]; ok {
			return bad("SecretEnv", "%s is also in Env; a variable is either secret or plain", n)
		}
		secrets[n] = true
	}
	raw := []string{spec.Command}
	raw = append(raw, spec.Args...)
	for _, s := range raw {
		for _, ref := range ReferencedEnv(s) {
			if secrets[ref] {
				return bad("Args", "secret %s is referenced in the command line; secrets reach the "+
					"daemon by environment only", ref)
			}
		}
	}
	for _, k := range sortedKeys(spec.Env) {
		if !envNamePattern.MatchString(k) {
			return bad("Env", "%q is not a variable name", k)
		}
		if k == EnvCoreURL || k == EnvDeviceID {
			return bad("Env", "%s is set by the adapter from CoreURL/DeviceID", k)
		}
		raw = append(raw, spec.Env[k])
	}
	for k := range spec.Labels {
		if strings.HasPrefix(k, reservedLabelPrefix) {
			return bad("Labels", "%q: keys under %q are reserved for the adapter", k, reservedLabelPrefix)
		}
	}
	_, refErr := allow.Check(raw...)
	secErr := allow.require(spec.SecretEnv)
	var a, b *DisallowedEnvError
	errors.As(refErr, &a)
	errors.As(secErr, &b)
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		return b
	case b == nil:
		return a
	}
	names := slices.Concat(a.Names, b.Names)
	slices.Sort(names)
	return &DisallowedEnvError{Names: slices.Compact(names)}
}

// launch is a spec with every reference expanded and placeholder filled, ready to run.
type launch struct {
	command string
	args    []string
	// env is the plain environment, NAME=value, sorted: WIRECHECK_CORE_URL, WIRECHECK_DEVICE_ID
	// and Env.
	env []string
	// secrets are NAME=value pairs for SecretEnv, in spec order. Never put them in argv.
	secrets []string
	// redact hides the secret values.
	redact redactor
}

// prepareLaunch expands a validated spec against lookup.
func prepareLaunch(spec UnitSpec, lookup LookupFunc) (launch, error) {
	fill := func(field, s string) (string, error) {
		v, err := ExpandEnv(s, lookup)
		if err != nil {
			return "", &SpecError{ID: spec.ID, Field: field, Reason: err.Error()}
		}
		v = strings.ReplaceAll(v, PlaceholderCoreURL, spec.CoreURL)
		return strings.ReplaceAll(v, PlaceholderDeviceID, spec.DeviceID), nil
	}
	var l launch
	var err error
	if l.command, err = fill("Command", spec.Command); err != nil {
		return launch{}, err
	}
	for _, a := range spec.Args {
		v, err := fill("Args", a)
		if err != nil {
			return launch{}, err
		}
		l.args = append(l.args, v)
	}
	l.env = []string{EnvCoreURL + "=" + spec.CoreURL, EnvDeviceID + "=" + spec.DeviceID}
	for _, k := range sortedKeys(spec.Env) {
		v, err := fill("Env["+k+"]", spec.Env[k])
		if err != nil {
			return launch{}, err
		}
		l.env = append(l.env, k+"="+v)
	}
	slices.Sort(l.env)
	var values []string
	for _, n := range spec.SecretEnv {
		v, ok := lookup(n)
		if !ok {
			return launch{}, &SpecError{ID: spec.ID, Field: "SecretEnv",
				Reason: n + " is not set in the suite's environment"}
		}
		l.secrets = append(l.secrets, n+"="+v)
		values = append(values, v)
	}
	l.redact = newRedactor(values)
	return l, nil
}

// secretValues reads the values of names from lookup, skipping unset ones.
func secretValues(names []string, lookup LookupFunc) []string {
	var out []string
	for _, n := range names {
		if v, ok := lookup(n); ok {
			out = append(out, v)
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

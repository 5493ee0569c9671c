package agentruntime

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// EnvAllowlist is the set of suite environment variables a unit spec may read, by ${NAME} reference
// or as a secret: least privilege over the suite's own secrets. The zero value denies everything.
type EnvAllowlist struct {
	names map[string]struct{}
}

// DenyAll is the allowlist that allows nothing (the zero value).
func DenyAll() EnvAllowlist { return EnvAllowlist{} }

// AllowEnv returns an allowlist of exactly these names.
func AllowEnv(names ...string) EnvAllowlist {
	a := EnvAllowlist{names: make(map[string]struct{}, len(names))}
	for _, n := range names {
		a.names[n] = struct{}{}
	}
	return a
}

// Allows reports whether name may be read.
func (a EnvAllowlist) Allows(name string) bool {
	_, ok := a.names[name]
	return ok
}

// Names returns the allowed names, sorted.
func (a EnvAllowlist) Names() []string {
	out := make([]string, 0, len(a.names))
	for n := range a.names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Check inspects raw, unexpanded text. It returns the names the text references (sorted, each
// once; a ${X:-default} still references X), or a [*DisallowedEnvError] naming only the referenced
// names that are not allowed. Checking before expansion means a rejected text never reaches the
// expander, so it cannot be used to probe which variables the suite has set.
func (a EnvAllowlist) Check(raw ...string) ([]string, error) {
	var refs []string
	for _, r := range raw {
		refs = append(refs, ReferencedEnv(r)...)
	}
	slices.Sort(refs)
	refs = slices.Compact(refs)
	if err := a.require(refs); err != nil {
		return nil, err
	}
	return refs, nil
}

// require fails with a DisallowedEnvError naming every name in names that is not allowed.
func (a EnvAllowlist) require(names []string) error {
	var bad []string
	for _, n := range names {
		if !a.Allows(n) {
			bad = append(bad, n)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return &DisallowedEnvError{Names: slices.Compact(bad)}
}

// envRef matches ${NAME} and ${NAME:-default}. NAME is a letter or underscore followed by letters,
// digits and underscores; the default runs to the first '}'. Anything else (e.g. "$NAME", "${1X}")
// is literal text.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-)([^}]*))?\}`)

// ReferencedEnv returns the names raw references, sorted, each once.
func ReferencedEnv(raw string) []string {
	var out []string
	for _, m := range envRef.FindAllStringSubmatch(raw, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ExpandEnv replaces each ${NAME} with lookup(NAME) and each ${NAME:-default} with lookup(NAME), or
// default when NAME is unset or empty (as the shell does). Expansion is one pass: a value is not
// expanded again. A ${NAME} whose variable is unset is an error naming it. It does not
// consult any allowlist: call [EnvAllowlist.Check] on the same text first.
func ExpandEnv(raw string, lookup LookupFunc) (string, error) {
	var missing []string
	out := envRef.ReplaceAllStringFunc(raw, func(ref string) string {
		m := envRef.FindStringSubmatch(ref)
		v, ok := lookup(m[1])
		switch {
		case m[2] != "" && v == "": // as in the shell, ":-" also covers a set but empty variable
			return m[3]
		case ok:
			return v
		}
		missing = append(missing, m[1])
		return ref
	})
	if len(missing) > 0 {
		slices.Sort(missing)
		return "", fmt.Errorf("environment variables referenced without a default are unset: %s",
			strings.Join(slices.Compact(missing), ", "))
	}
	return out, nil
}

package contract

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/wirecheck/wirecheck/reference/daemon/environment"
)

// Metadata keys and values of turn.inspect (docs/contract-harness.md, "Environment preparation").
const (
	MetaFilePrefix  = "file:" // + logical path → "file size=N sha256=HEX", absent, directory, symlink, other, unsafe
	MetaEnvPrefix   = "env:"  // + name → "set=VALUE" or "unset"
	MetaSkills      = "skills"
	MetaPlugins     = "plugins"
	MetaInspect     = "inspect"        // "no_environment" when the Runtime has no Environment
	NoEnvironment   = "no_environment" // the value of MetaInspect then
	inspectFailedAs = "error"          // a path that could not be inspected
)

// inspect reports what env holds, as done.metadata entries.
func inspect(env *environment.Environment, in *Inspect) map[string]string {
	md := map[string]string{}
	if env == nil {
		md[MetaInspect] = NoEnvironment
		return md
	}
	for _, f := range in.Files {
		ent, err := env.Stat(f)
		switch {
		case err != nil:
			md[MetaFilePrefix+f] = inspectFailedAs
		case ent.Kind == environment.File:
			md[MetaFilePrefix+f] = fmt.Sprintf("file size=%d sha256=%s", ent.Size, ent.SHA256)
		default:
			md[MetaFilePrefix+f] = string(ent.Kind)
		}
	}
	if len(in.Env) > 0 {
		vars, err := env.Env()
		for _, n := range in.Env {
			v, ok := vars[n]
			switch {
			case err != nil:
				md[MetaEnvPrefix+n] = inspectFailedAs
			case ok:
				md[MetaEnvPrefix+n] = "set=" + v
			default:
				md[MetaEnvPrefix+n] = "unset"
			}
		}
	}
	if in.Skills {
		names, err := env.Skills()
		md[MetaSkills] = jsonOr(names, err)
	}
	if in.Plugins {
		slots, err := env.Plugins()
		bySlot := map[string]string{}
		for slot, name := range slots {
			bySlot[strconv.Itoa(slot)] = name
		}
		md[MetaPlugins] = jsonOr(bySlot, err)
	}
	return md
}

// jsonOr is v as compact JSON (arrays never null), or "error".
func jsonOr(v any, err error) string {
	if names, ok := v.([]string); ok && names == nil {
		v = []string{}
	}
	data, merr := json.Marshal(v)
	if err != nil || merr != nil {
		return inspectFailedAs
	}
	return string(data)
}

// Package prepshape holds what the runtime_prepare shape mutants of both reference sides share
// (rules RP-01 … RP-09, scenarios/rules/clauses/RP.tsv): for a shape clause, whether a payload
// breaks that one rule and nothing else, and for an at-limit clause, whether a payload sits
// exactly on the limit. A mutant that stops checking one rule serves (the Runtime) or sends (Core)
// a payload the rule alone refuses; every other rule still holds. Only mutation points use it.
package prepshape

import (
	"maps"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wirecheck/wirecheck/proto"
)

// Fixed returns a copy of p with the one rule of clause repaired, when p breaks that rule and the
// repaired copy breaks no other (p is otherwise valid); nil when it does not, or when clause has no
// fix here.
func Fixed(clause string, p *proto.RuntimePreparePayload) *proto.RuntimePreparePayload {
	fix := fixes[clause]
	if fix == nil || p == nil {
		return nil
	}
	c := Clone(p)
	if !fix(c) || c.Validate() != nil {
		return nil
	}
	return c
}

// AtLimit reports whether the valid payload p sits exactly on the limit (or the accepted edge) an
// at-limit clause names; false for a clause it does not know.
func AtLimit(clause string, p *proto.RuntimePreparePayload) bool {
	at := atLimits[clause]
	return at != nil && p != nil && at(p)
}

// Clone deep-copies p, keeping nil and empty members apart.
func Clone(p *proto.RuntimePreparePayload) *proto.RuntimePreparePayload {
	c := *p
	c.Data = slices.Clone(p.Data)
	if p.Skill != nil {
		s := *p.Skill
		c.Skill = &s
	}
	if p.Plugin != nil {
		s := *p.Plugin
		c.Plugin = &s
	}
	if p.File != nil {
		f := *p.File
		c.File = &f
	}
	if p.Initialization != nil {
		i := *p.Initialization
		i.Env, i.Packages = maps.Clone(i.Env), slices.Clone(i.Packages)
		c.Initialization = &i
	}
	if p.Sources != nil {
		s := *p.Sources
		s.Skills, s.Plugins, s.Directories = slices.Clone(s.Skills), slices.Clone(s.Plugins), slices.Clone(s.Directories)
		c.Sources = &s
	}
	return &c
}

// placeholder is a valid, non-nil UUID put where a broken one was.
const placeholder = "6a0f0d8e-6c1e-4b8e-9d7a-1f2e3d4c5b6a"

// NormalizeUUID is s as a lenient parser reads a UUID: braces dropped, lowercased, hyphens put
// back into 32 hex digits.
func NormalizeUUID(s string) string {
	t := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}"))
	if len(t) == 32 && strings.Trim(t, "0123456789abcdef") == "" {
		t = t[:8] + "-" + t[8:12] + "-" + t[12:16] + "-" + t[16:20] + "-" + t[20:]
	}
	return t
}

// uuidShaped: s reads as a UUID to a lenient parser (the nil UUID included).
func uuidShaped(s string) bool {
	n := NormalizeUUID(s)
	return n == proto.NilUUID || proto.CanonicalUUID(n)
}

func begin(p *proto.RuntimePreparePayload) bool { return p.Step == proto.StepBegin }

func withBody(p *proto.RuntimePreparePayload) bool {
	return begin(p) && (p.Action == proto.ActionFile || p.Action == proto.ActionSkill || p.Action == proto.ActionPlugin)
}

func headerOnly(p *proto.RuntimePreparePayload) bool {
	return begin(p) && (p.Action == proto.ActionInitialize || p.Action == proto.ActionFinalize)
}

// capability is the skill or plugin header the begin's action names.
func capability(p *proto.RuntimePreparePayload) *proto.InlineCapability {
	switch {
	case !begin(p):
	case p.Action == proto.ActionSkill:
		return p.Skill
	case p.Action == proto.ActionPlugin:
		return p.Plugin
	}
	return nil
}

func initialization(p *proto.RuntimePreparePayload) *proto.RuntimeInitialization {
	if begin(p) && p.Action == proto.ActionInitialize {
		return p.Initialization
	}
	return nil
}

func sources(p *proto.RuntimePreparePayload) *proto.CapabilitySources {
	if begin(p) && p.Action == proto.ActionFinalize {
		return p.Sources
	}
	return nil
}

func filePath(p *proto.RuntimePreparePayload) (string, bool) {
	if begin(p) && p.Action == proto.ActionFile && p.File != nil {
		return p.File.Path, true
	}
	return "", false
}

func stripBegin(p *proto.RuntimePreparePayload) bool {
	had := p.EnvironmentID != "" || p.SessionID != "" || p.Action != "" || p.Slot != 0 || p.Skill != nil || p.Plugin != nil ||
		p.File != nil || p.Initialization != nil || p.Sources != nil || p.SizeBytes != 0 || p.SHA256 != ""
	p.EnvironmentID, p.SessionID, p.Action, p.Slot = "", "", "", 0
	p.Skill, p.Plugin, p.File, p.Initialization, p.Sources = nil, nil, nil, nil, nil
	p.SizeBytes, p.SHA256 = 0, ""
	return had
}

// uuidFix repairs a broken UUID: a non-canonical spelling to its canonical form, anything else to
// a placeholder.
func uuidFix(id *string, broken func(string) bool) bool {
	if !broken(*id) {
		return false
	}
	if n := NormalizeUUID(*id); proto.CanonicalUUID(n) {
		*id = n
	} else {
		*id = placeholder
	}
	return true
}

var (
	notUUID      = func(s string) bool { return !uuidShaped(s) }
	nonCanonical = func(s string) bool {
		return s != proto.NilUUID && NormalizeUUID(s) != s && proto.CanonicalUUID(NormalizeUUID(s))
	}
	nilUUID = func(s string) bool { return s == proto.NilUUID }
)

var actionOfHeader = map[string]string{"skill": proto.ActionSkill, "plugin": proto.ActionPlugin, "file": proto.ActionFile,
	"initialization": proto.ActionInitialize, "sources": proto.ActionFinalize}

func headers(p *proto.RuntimePreparePayload) []string {
	var hs []string
	for name, present := range map[string]bool{"skill": p.Skill != nil, "plugin": p.Plugin != nil, "file": p.File != nil,
		"initialization": p.Initialization != nil, "sources": p.Sources != nil} {
		if present {
			hs = append(hs, name)
		}
	}
	slices.Sort(hs)
	return hs
}

func validAction(a string) bool {
	return slices.Contains([]string{proto.ActionSkill, proto.ActionPlugin, proto.ActionFile, proto.ActionInitialize, proto.ActionFinalize}, a)
}

func badLine(s string) bool { return strings.ContainsAny(s, "\x00\r\n") }

func inWorkspace(s string) bool { return s == "/workspace" || strings.HasPrefix(s, "/workspace/") }

// truncated is s cut to n bytes when that leaves a clean path.
func truncated(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	t := s[:n]
	return t, path.Clean(t) == t
}

func capabilityFix(c *proto.InlineCapability) bool {
	fixed := false
	if c.Type != proto.InlineCapabilityType {
		c.Type, fixed = proto.InlineCapabilityType, true
	}
	if c.Name == "" || !utf8.ValidString(c.Name) {
		c.Name, fixed = "unnamed", true
	}
	if c.Description == "" || !utf8.ValidString(c.Description) {
		c.Description, fixed = "undescribed", true
	}
	return fixed
}

// fixes repair the one rule of a shape or over-limit clause; each reports whether p broke it.
var fixes = map[string]func(p *proto.RuntimePreparePayload) bool{
	"RP-01.1": func(p *proto.RuntimePreparePayload) bool {
		if p.Step == "" || p.Step == proto.StepBegin || p.Step == proto.StepChunk || p.Step == proto.StepCommit {
			return false
		}
		p.Step = proto.StepCommit // an unknown step falls through to commit
		return true
	},
	"RP-01.2": func(p *proto.RuntimePreparePayload) bool { return p.Step == proto.StepChunk && stripBegin(p) },
	"RP-01.3": func(p *proto.RuntimePreparePayload) bool { return p.Step == proto.StepCommit && stripBegin(p) },
	"RP-01.4": func(p *proto.RuntimePreparePayload) bool {
		if !begin(p) || p.Offset == 0 {
			return false
		}
		p.Offset = 0
		return true
	},
	"RP-01.5": func(p *proto.RuntimePreparePayload) bool {
		if !begin(p) || len(p.Data) == 0 {
			return false
		}
		p.Data = nil
		return true
	},
	"RP-01.6": func(p *proto.RuntimePreparePayload) bool {
		if p.Step != proto.StepCommit || p.Offset == 0 {
			return false
		}
		p.Offset = 0
		return true
	},
	"RP-01.7": func(p *proto.RuntimePreparePayload) bool {
		if p.Step != proto.StepCommit || len(p.Data) == 0 {
			return false
		}
		p.Data = nil
		return true
	},
	"RP-02.1": func(p *proto.RuntimePreparePayload) bool { return begin(p) && uuidFix(&p.EnvironmentID, notUUID) },
	"RP-02.2": func(p *proto.RuntimePreparePayload) bool { return begin(p) && uuidFix(&p.EnvironmentID, nonCanonical) },
	"RP-02.3": func(p *proto.RuntimePreparePayload) bool { return begin(p) && uuidFix(&p.EnvironmentID, nilUUID) },
	"RP-02.4": func(p *proto.RuntimePreparePayload) bool { return begin(p) && uuidFix(&p.SessionID, notUUID) },
	"RP-02.5": func(p *proto.RuntimePreparePayload) bool { return begin(p) && uuidFix(&p.SessionID, nonCanonical) },
	"RP-02.6": func(p *proto.RuntimePreparePayload) bool { return begin(p) && uuidFix(&p.SessionID, nilUUID) },
	"RP-03.1": func(p *proto.RuntimePreparePayload) bool {
		hs := headers(p)
		if !begin(p) || validAction(p.Action) || len(hs) != 1 {
			return false
		}
		p.Action = actionOfHeader[hs[0]] // the action read off the one header
		return true
	},
	"RP-03.2": func(p *proto.RuntimePreparePayload) bool {
		if !begin(p) {
			return false
		}
		switch {
		case p.Action == proto.ActionSkill && p.Skill == nil:
			p.Skill = &proto.InlineCapability{Type: proto.InlineCapabilityType, Name: "unnamed", Description: "undescribed"}
		case p.Action == proto.ActionPlugin && p.Plugin == nil:
			p.Plugin = &proto.InlineCapability{Type: proto.InlineCapabilityType, Name: "unnamed", Description: "undescribed"}
		case p.Action == proto.ActionFile && p.File == nil:
			p.File = &proto.PreparedFile{Path: "/workspace/unnamed"}
		case p.Action == proto.ActionInitialize && p.Initialization == nil:
			p.Initialization = &proto.RuntimeInitialization{Action: proto.InitConfigure}
		default: // a finalize without sources is RP-07.1's
			return false
		}
		return true
	},
	"RP-03.3": func(p *proto.RuntimePreparePayload) bool {
		if !begin(p) || !validAction(p.Action) {
			return false
		}
		fixed := false
		for _, h := range headers(p) {
			if actionOfHeader[h] == p.Action {
				continue
			}
			fixed = true
			switch h {
			case "skill":
				p.Skill = nil
			case "plugin":
				p.Plugin = nil
			case "file":
				p.File = nil
			case "initialization":
				p.Initialization = nil
			case "sources":
				p.Sources = nil
			}
		}
		return fixed
	},
	"RP-03.5": func(p *proto.RuntimePreparePayload) bool {
		if !begin(p) || p.Action != proto.ActionPlugin || p.Slot != proto.PluginSlots {
			return false
		}
		p.Slot = proto.PluginSlots - 1
		return true
	},
	"RP-03.6": func(p *proto.RuntimePreparePayload) bool {
		if !begin(p) || p.Action == proto.ActionPlugin || p.Slot == 0 {
			return false
		}
		p.Slot = 0
		return true
	},
	"RP-04.1": func(p *proto.RuntimePreparePayload) bool {
		c := capability(p)
		if c == nil || c.Type == proto.InlineCapabilityType {
			return false
		}
		c.Type = proto.InlineCapabilityType
		return true
	},
	"RP-04.2": func(p *proto.RuntimePreparePayload) bool {
		c := capability(p)
		if c == nil || (c.Name != "" && utf8.ValidString(c.Name)) {
			return false
		}
		c.Name = "unnamed"
		return true
	},
	"RP-04.3": func(p *proto.RuntimePreparePayload) bool {
		c := capability(p)
		if c == nil || (c.Description != "" && utf8.ValidString(c.Description)) {
			return false
		}
		c.Description = "undescribed"
		return true
	},
	"RP-05.1": func(p *proto.RuntimePreparePayload) bool {
		s, ok := filePath(p)
		if !ok || inWorkspace(s) {
			return false
		}
		p.File.Path = path.Join("/workspace", s)
		return true
	},
	"RP-05.2": func(p *proto.RuntimePreparePayload) bool {
		s, ok := filePath(p)
		if !ok || s != "/workspace" {
			return false
		}
		p.File.Path = "/workspace/unnamed"
		return true
	},
	"RP-05.3": func(p *proto.RuntimePreparePayload) bool {
		s, ok := filePath(p)
		if !ok || !strings.HasPrefix(s, "/workspace/") || path.Clean(s) == s || !strings.HasPrefix(path.Clean(s), "/workspace/") {
			return false
		}
		p.File.Path = path.Clean(s)
		return true
	},
	"RP-05.5": func(p *proto.RuntimePreparePayload) bool {
		s, ok := filePath(p)
		if !ok || len(s) != proto.MaxPathBytes+1 {
			return false
		}
		t, clean := truncated(s, proto.MaxPathBytes)
		p.File.Path = t
		return clean
	},
	"RP-05.6": func(p *proto.RuntimePreparePayload) bool {
		s, ok := filePath(p)
		if !ok || !strings.Contains(s, `\`) {
			return false
		}
		p.File.Path = strings.ReplaceAll(s, `\`, "/")
		return true
	},
	"RP-05.7": func(p *proto.RuntimePreparePayload) bool {
		s, ok := filePath(p)
		if !ok || !badLine(s) {
			return false
		}
		p.File.Path = strings.NewReplacer("\x00", "", "\r", "", "\n", "").Replace(s)
		return true
	},
	"RP-06.1": func(p *proto.RuntimePreparePayload) bool {
		i := initialization(p)
		if i == nil || slices.Contains([]string{proto.InitConfigure, proto.InitNPM, proto.InitPython, proto.InitSetup}, i.Action) {
			return false
		}
		switch {
		case i.Command != "":
			i.Action = proto.InitSetup
		case i.Packages != nil:
			i.Action = proto.InitNPM
		default:
			i.Action = proto.InitConfigure
		}
		return true
	},
	"RP-06.2": func(p *proto.RuntimePreparePayload) bool {
		i := initialization(p)
		if i == nil || i.Env == nil || i.Action == proto.InitConfigure {
			return false
		}
		i.Env = nil
		return true
	},
	"RP-06.4": func(p *proto.RuntimePreparePayload) bool {
		i := initialization(p)
		if i == nil || i.Action != proto.InitConfigure || len(i.Env) != proto.MaxInitializationEntries+1 {
			return false
		}
		delete(i.Env, slices.Max(slices.Collect(maps.Keys(i.Env))))
		return true
	},
	"RP-06.5": func(p *proto.RuntimePreparePayload) bool {
		i := initialization(p)
		if i == nil || i.Action != proto.InitConfigure {
			return false
		}
		fixed := false
		for k, v := range i.Env {
			if k == "" || strings.ContainsAny(k, "=\x00\r\n") || strings.ContainsRune(v, 0) {
				delete(i.Env, k)
				fixed = true
			}
		}
		return fixed
	},
	"RP-06.6": func(p *proto.RuntimePreparePayload) bool {
		i := initialization(p)
		if i == nil || i.Packages == nil || i.Action == proto.InitNPM || i.Action == proto.InitPython {
			return false
		}
		i.Packages = nil
		return true
	},
	"RP-06.7": func(p *proto.RuntimePreparePayload) bool {
		i := initialization(p)
		if i == nil || (i.Action != proto.InitNPM && i.Action != proto.InitPython) || len(i.Packages) > 0 {
			return false
		}
		i.Packages = []string{"unnamed"}
		return true
	},
	"RP-06.9": func(p *proto.RuntimePreparePayload) bool {
		i := initialization(p)
		if i == nil || (i.Action != proto.InitNPM && i.Action != proto.InitPython) || len(i.Packages) != proto.MaxInitializationEntries+1 {
			return false
		}
		i.Packages = i.Packages[:proto.MaxInitializationEntries]
		return true
	},
	"RP-06.10": func(p *proto.RuntimePreparePayload) bool {
		i := initialization(p)
		if i == nil || (i.Action != proto.InitNPM && i.Action != proto.InitPython) {
			return false
		}
		fixed := false
		for j, pkg := range i.Packages {
			if pkg == "" || strings.HasPrefix(pkg, "-") || badLine(pkg) {
				i.Packages[j], fixed = "unnamed", true
			}
		}
		return fixed
	},
	"RP-06.11": func(p *proto.RuntimePreparePayload) bool {
		i := initialization(p)
		if i == nil || i.Action != proto.InitSetup || (i.Command != "" && utf8.ValidString(i.Command) && !strings.ContainsRune(i.Command, 0)) {
			return false
		}
		i.Command = "true"
		return true
	},
	"RP-06.12": func(p *proto.RuntimePreparePayload) bool {
		i := initialization(p)
		if i == nil || i.Action == proto.InitSetup || (i.Command == "" && i.Cwd == "") {
			return false
		}
		i.Command, i.Cwd = "", ""
		return true
	},
	"RP-06.13": func(p *proto.RuntimePreparePayload) bool {
		i := initialization(p)
		if i == nil || i.Action != proto.InitSetup || i.Cwd == "" || inWorkspace(i.Cwd) {
			return false
		}
		i.Cwd = "/workspace"
		return true
	},
	"RP-07.1": func(p *proto.RuntimePreparePayload) bool {
		if !begin(p) || p.Action != proto.ActionFinalize || p.Sources != nil {
			return false
		}
		p.Sources = &proto.CapabilitySources{}
		return true
	},
	"RP-07.3": func(p *proto.RuntimePreparePayload) bool {
		s := sources(p)
		if s == nil || len(s.Skills) != proto.MaxCapabilitySources+1 {
			return false
		}
		s.Skills = s.Skills[:proto.MaxCapabilitySources]
		return true
	},
	"RP-07.5": func(p *proto.RuntimePreparePayload) bool {
		s := sources(p)
		if s == nil || len(s.Plugins) != proto.MaxCapabilitySources+1 {
			return false
		}
		s.Plugins = s.Plugins[:proto.MaxCapabilitySources]
		return true
	},
	"RP-07.7": func(p *proto.RuntimePreparePayload) bool {
		s := sources(p)
		if s == nil || len(s.Directories) != proto.MaxCapabilitySources+1 {
			return false
		}
		s.Directories = s.Directories[:proto.MaxCapabilitySources]
		return true
	},
	"RP-07.8": func(p *proto.RuntimePreparePayload) bool {
		s := sources(p)
		if s == nil {
			return false
		}
		fixed := false
		for i := range s.Skills {
			fixed = capabilityFix(&s.Skills[i]) || fixed
		}
		for i := range s.Plugins {
			fixed = capabilityFix(&s.Plugins[i]) || fixed
		}
		return fixed
	},
	"RP-07.9": func(p *proto.RuntimePreparePayload) bool {
		s := sources(p)
		if s == nil {
			return false
		}
		fixed := false
		for i, d := range s.Directories {
			if d != "" && path.Clean(d) != d {
				s.Directories[i], fixed = path.Clean(d), true
			}
		}
		return fixed
	},
	"RP-07.11": func(p *proto.RuntimePreparePayload) bool {
		s := sources(p)
		if s == nil {
			return false
		}
		fixed := false
		for i, d := range s.Directories {
			if len(d) == proto.MaxPathBytes+1 {
				t, clean := truncated(d, proto.MaxPathBytes)
				if !clean {
					return false
				}
				s.Directories[i], fixed = t, true
			}
		}
		return fixed
	},
	"RP-07.12": func(p *proto.RuntimePreparePayload) bool {
		s := sources(p)
		if s == nil {
			return false
		}
		var unique []string
		for _, d := range s.Directories {
			if !slices.Contains(unique, d) {
				unique = append(unique, d)
			}
		}
		if len(unique) == len(s.Directories) {
			return false
		}
		s.Directories = unique
		return true
	},
	"RP-08.2": func(p *proto.RuntimePreparePayload) bool {
		if !begin(p) || p.SizeBytes != proto.TransferMaxBytes+1 {
			return false
		}
		p.SizeBytes = proto.TransferMaxBytes
		return true
	},
	"RP-08.3": func(p *proto.RuntimePreparePayload) bool {
		if !withBody(p) || p.SizeBytes >= 0 {
			return false
		}
		p.SizeBytes = min(-p.SizeBytes, proto.TransferMaxBytes)
		return true
	},
	"RP-08.4": func(p *proto.RuntimePreparePayload) bool {
		if capability(p) == nil || p.SizeBytes != 0 {
			return false
		}
		p.SizeBytes = 1
		return true
	},
	"RP-08.6": func(p *proto.RuntimePreparePayload) bool {
		if !headerOnly(p) || p.SizeBytes == 0 {
			return false
		}
		p.SizeBytes = 0
		return true
	},
	"RP-08.7": func(p *proto.RuntimePreparePayload) bool {
		lower := strings.ToLower(p.SHA256)
		if !withBody(p) || lower == p.SHA256 {
			return false
		}
		p.SHA256 = lower // hex read case-insensitively
		return true
	},
	"RP-08.8": func(p *proto.RuntimePreparePayload) bool {
		if !headerOnly(p) || p.SHA256 == "" {
			return false
		}
		p.SHA256 = ""
		return true
	},
	"RP-09.2": func(p *proto.RuntimePreparePayload) bool {
		if p.Step != proto.StepChunk || p.Offset >= 0 {
			return false
		}
		p.Offset = 0
		return true
	},
	"RP-09.3": func(p *proto.RuntimePreparePayload) bool {
		if p.Step != proto.StepChunk || len(p.Data) > 0 {
			return false
		}
		p.Data = []byte{0}
		return true
	},
	"RP-09.5": func(p *proto.RuntimePreparePayload) bool {
		if p.Step != proto.StepChunk || len(p.Data) != proto.TransferChunkBytes+1 {
			return false
		}
		p.Data = p.Data[:proto.TransferChunkBytes]
		return true
	},
	"RP-09.8": func(p *proto.RuntimePreparePayload) bool {
		n := int64(len(p.Data))
		if p.Step != proto.StepChunk || n < 2 || p.Offset+n != proto.TransferMaxBytes+1 {
			return false
		}
		p.Data = p.Data[:n-1]
		return true
	},
}

// atLimits say whether a valid payload sits exactly on the edge an at-limit clause accepts.
var atLimits = map[string]func(p *proto.RuntimePreparePayload) bool{
	"RP-03.4": func(p *proto.RuntimePreparePayload) bool {
		return begin(p) && p.Action == proto.ActionPlugin && p.Slot == proto.PluginSlots-1
	},
	"RP-05.4": func(p *proto.RuntimePreparePayload) bool {
		s, ok := filePath(p)
		return ok && len(s) == proto.MaxPathBytes
	},
	"RP-06.3": func(p *proto.RuntimePreparePayload) bool {
		i := initialization(p)
		return i != nil && i.Action == proto.InitConfigure && len(i.Env) == proto.MaxInitializationEntries
	},
	"RP-06.8": func(p *proto.RuntimePreparePayload) bool {
		i := initialization(p)
		return i != nil && len(i.Packages) == proto.MaxInitializationEntries
	},
	"RP-07.2": func(p *proto.RuntimePreparePayload) bool {
		s := sources(p)
		return s != nil && len(s.Skills) == proto.MaxCapabilitySources
	},
	"RP-07.4": func(p *proto.RuntimePreparePayload) bool {
		s := sources(p)
		return s != nil && len(s.Plugins) == proto.MaxCapabilitySources
	},
	"RP-07.6": func(p *proto.RuntimePreparePayload) bool {
		s := sources(p)
		return s != nil && len(s.Directories) == proto.MaxCapabilitySources
	},
	"RP-07.10": func(p *proto.RuntimePreparePayload) bool {
		s := sources(p)
		return s != nil && slices.ContainsFunc(s.Directories, func(d string) bool { return len(d) == proto.MaxPathBytes })
	},
	"RP-08.1": func(p *proto.RuntimePreparePayload) bool { return withBody(p) && p.SizeBytes == proto.TransferMaxBytes },
	"RP-08.5": func(p *proto.RuntimePreparePayload) bool {
		return begin(p) && p.Action == proto.ActionFile && p.SizeBytes == 0
	},
	"RP-09.4": func(p *proto.RuntimePreparePayload) bool {
		return p.Step == proto.StepChunk && len(p.Data) == proto.TransferChunkBytes
	},
	"RP-09.7": func(p *proto.RuntimePreparePayload) bool {
		return p.Step == proto.StepChunk && p.Offset+int64(len(p.Data)) == proto.TransferMaxBytes
	},
}

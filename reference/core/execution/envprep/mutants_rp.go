package envprep

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/wirecheck/wirecheck/internal/mutation/prepshape"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// The runtime_prepare mutants (RP) of the preparation API and of what Core computes. Every one
// acts only once mutation.On says so, a constant false outside the wirecheck_mutants build.

// unchecked are the API's shape mutants: an operation whose begin breaks the mutant's one rule,
// and no other, is taken and sent as the caller gave it.
var unchecked = []struct {
	point  mutation.Point
	clause string
}{
	{mutation.RPCoreEnvironmentIDUnchecked, "RP-02.1"},
	{mutation.RPCoreEnvironmentIDNonCanonical, "RP-02.2"},
	{mutation.RPCoreEnvironmentIDNil, "RP-02.3"},
	{mutation.RPCoreSessionIDUnchecked, "RP-02.4"},
	{mutation.RPCoreSessionIDNonCanonical, "RP-02.5"},
	{mutation.RPCoreSessionIDNil, "RP-02.6"},
	{mutation.RPCoreActionUnchecked, "RP-03.1"},
	{mutation.RPCoreHeaderMissing, "RP-03.2"},
	{mutation.RPCoreExtraHeader, "RP-03.3"},
	{mutation.RPCorePluginSlot50, "RP-03.5"},
	{mutation.RPCoreSlotOutsidePlugin, "RP-03.6"},
	{mutation.RPCoreCapabilityType, "RP-04.1"},
	{mutation.RPCoreCapabilityName, "RP-04.2"},
	{mutation.RPCoreCapabilityDescription, "RP-04.3"},
	{mutation.RPCoreFileOutsideWorkspace, "RP-05.1"},
	{mutation.RPCoreFileWorkspaceRoot, "RP-05.2"},
	{mutation.RPCoreFilePathUnclean, "RP-05.3"},
	{mutation.RPCoreFilePath4097, "RP-05.5"},
	{mutation.RPCoreFilePathBackslash, "RP-05.6"},
	{mutation.RPCoreFilePathControl, "RP-05.7"},
	{mutation.RPCoreInitAction, "RP-06.1"},
	{mutation.RPCoreEnvOutsideConfigure, "RP-06.2"},
	{mutation.RPCoreEnv1001, "RP-06.4"},
	{mutation.RPCoreEnvEntry, "RP-06.5"},
	{mutation.RPCorePackagesOutsideNPM, "RP-06.6"},
	{mutation.RPCorePackagesEmpty, "RP-06.7"},
	{mutation.RPCorePackages1001, "RP-06.9"},
	{mutation.RPCorePackage, "RP-06.10"},
	{mutation.RPCoreSetupCommand, "RP-06.11"},
	{mutation.RPCoreCommandOutsideSetup, "RP-06.12"},
	{mutation.RPCoreSetupCwd, "RP-06.13"},
	{mutation.RPCoreSourcesMissing, "RP-07.1"},
	{mutation.RPCoreSources51Skills, "RP-07.3"},
	{mutation.RPCoreSources51Plugins, "RP-07.5"},
	{mutation.RPCoreSources51Directories, "RP-07.7"},
	{mutation.RPCoreSourceEntry, "RP-07.8"},
	{mutation.RPCoreDirectoryUnclean, "RP-07.9"},
	{mutation.RPCoreDirectory4097, "RP-07.11"},
	{mutation.RPCoreDirectoryRepeat, "RP-07.12"},
	{mutation.RPCoreBodyOver50MiB, "RP-08.2"},
	{mutation.RPCoreCapabilityEmptyBody, "RP-08.4"},
}

// tolerated reports whether a shape mutant takes begin, which the wire's validator refused.
func tolerated(begin *proto.RuntimePreparePayload) bool {
	for _, u := range unchecked {
		if prepshape.Fixed(u.clause, begin) != nil && mutation.On(u.point) {
			return true
		}
	}
	return false
}

// atLimit are the API's at-limit mutants: an operation exactly on the limit is refused.
var atLimit = []struct {
	point  mutation.Point
	clause string
}{
	{mutation.RPCorePluginSlot49Refused, "RP-03.4"},
	{mutation.RPCoreFilePath4096Refused, "RP-05.4"},
	{mutation.RPCoreEnv1000Refused, "RP-06.3"},
	{mutation.RPCorePackages1000Refused, "RP-06.8"},
	{mutation.RPCoreSources50SkillsRefused, "RP-07.2"},
	{mutation.RPCoreSources50PluginsRefused, "RP-07.4"},
	{mutation.RPCoreSources50DirectoriesRefused, "RP-07.6"},
	{mutation.RPCoreDirectory4096Refused, "RP-07.10"},
	{mutation.RPCoreBody50MiBRefused, "RP-08.1"},
	{mutation.RPCoreZeroSizeFileRefused, "RP-08.5"},
}

// refusedAtLimit is the error an at-limit mutant refuses a valid begin with, or nil.
func refusedAtLimit(begin *proto.RuntimePreparePayload) error {
	for _, l := range atLimit {
		if prepshape.AtLimit(l.clause, begin) && mutation.On(l.point) {
			return errors.New("runtime_prepare.begin: the limit itself is refused (" + l.clause + ")")
		}
	}
	return nil
}

// mutateComputed bends the size_bytes and sha256 Core computed for a begin.
func mutateComputed(begin *proto.RuntimePreparePayload) {
	if begin.SHA256 != "" && mutation.On(mutation.RPCoreSHAUppercase) {
		begin.SHA256 = strings.ToUpper(begin.SHA256)
	}
	if (begin.Action == proto.ActionInitialize || begin.Action == proto.ActionFinalize) && mutation.On(mutation.RPCoreHeaderSHA) {
		sum := sha256.Sum256(nil)
		begin.SHA256 = hex.EncodeToString(sum[:])
	}
}

package proto

// Version is the wire version a Runtime sends as the `version` query parameter of the WebSocket
// dial. It is independent of the Runtime build version a heartbeat reports as daemon_version.
const Version = "0.11.0"

// VersionCompatible reports whether a peer's wire version may connect: only a byte-for-byte match
// is compatible. Patch drift, prerelease and build suffixes, whitespace and malformed strings are
// all rejected, with HTTP 426 incompatible_version before authentication and before any dispatch.
func VersionCompatible(v string) bool { return v == Version }

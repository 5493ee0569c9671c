package journal

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// ManifestSigName is the file beside manifest.json that signs it.
const ManifestSigName = "manifest.json.sig"

// ManifestSigFormat names this version of the manifest signature file; it is its "format".
const ManifestSigFormat = "wirecheck-manifest-sig/1"

// maxManifestSig bounds the signature file: its three members fit in far less, so a larger file
// is not one.
const maxManifestSig = 1 << 10

// ManifestSig is manifest.json.sig: one line of JSON naming the signer's key (KeyID, as an
// anchor names it) and the ed25519 signature of manifest.json's exact bytes, in standard padded
// base64. The message is the file as it is, not a re-serialisation, so openssl can check it.
type ManifestSig struct {
	Format string `json:"format"` // ManifestSigFormat
	KeyID  string `json:"key_id"`
	Sig    string `json:"sig"`
}

// SignManifest is the manifest.json.sig of manifest (its exact bytes) signed with key.
func SignManifest(manifest []byte, key ed25519.PrivateKey) []byte {
	s := ManifestSig{Format: ManifestSigFormat, KeyID: KeyID(key.Public().(ed25519.PublicKey)),
		Sig: base64.StdEncoding.EncodeToString(ed25519.Sign(key, manifest))}
	out, _ := json.Marshal(s) // three strings always encode
	return append(out, '\n')
}

// DecodeManifestSig reads manifest.json.sig strictly: one JSON object with exactly format,
// key_id (32 lowercase hex characters) and sig (standard padded base64 of 64 bytes), optionally
// followed by a newline.
func DecodeManifestSig(data []byte) (ManifestSig, error) {
	var s ManifestSig
	if len(data) > maxManifestSig {
		return s, fmt.Errorf("%d bytes: a signature file is at most %d", len(data), maxManifestSig)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("not a manifest signature: %w", err)
	}
	if rest := bytes.TrimSuffix(data[dec.InputOffset():], []byte("\n")); len(rest) > 0 {
		return s, errors.New("not a manifest signature: data after the object")
	}
	if s.Format != ManifestSigFormat {
		return s, fmt.Errorf("format %q: this verifier reads %q", s.Format, ManifestSigFormat)
	}
	if len(s.KeyID) != 32 || !isLowerHex(s.KeyID) {
		return s, fmt.Errorf("key_id %q is not 32 lowercase hex characters", s.KeyID)
	}
	sig, err := base64.StdEncoding.Strict().DecodeString(s.Sig)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return s, fmt.Errorf("sig is not standard base64 of a %d-byte ed25519 signature", ed25519.SignatureSize)
	}
	return s, nil
}

// checkManifestSig checks manifest (manifest.json's bytes) against sigFile (the bytes of
// manifest.json.sig; nil when there is none). It returns the key id the signature names ("" if
// unsigned) and the problems: a malformed signature file always; given pub, an unsigned
// manifest, another key's signature, or one that does not verify.
func checkManifestSig(manifest, sigFile []byte, pub ed25519.PublicKey) (keyID string, probs []Problem) {
	p := func(file string, k ProblemKind, format string, args ...any) []Problem {
		return []Problem{{File: file, Record: -1, Kind: k, Detail: fmt.Sprintf(format, args...)}}
	}
	if sigFile == nil {
		if pub != nil {
			return "", p(manifestName, Unsigned, "is not signed (there is no %s), yet a public key was given to check it", ManifestSigName)
		}
		return "", nil
	}
	s, err := DecodeManifestSig(sigFile)
	if err != nil {
		return "", p(ManifestSigName, Malformed, "%v", err)
	}
	if pub == nil {
		return s.KeyID, nil
	}
	if want := KeyID(pub); s.KeyID != want {
		return s.KeyID, p(manifestName, WrongKey, "is signed by key %s (%s), not by the given key %s: wrong key", s.KeyID, ManifestSigName, want)
	}
	sig, _ := base64.StdEncoding.DecodeString(s.Sig) // checked by DecodeManifestSig
	if !ed25519.Verify(pub, manifest, sig) {
		return s.KeyID, p(manifestName, Tampered, "was changed after it was signed: %s does not verify with the given key %s", ManifestSigName, s.KeyID)
	}
	return s.KeyID, nil
}

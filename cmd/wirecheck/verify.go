package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/reports"
)

func init() {
	var pubkey string
	verify := &cobra.Command{
		Use:   "verify BUNDLE",
		Short: "Check an evidence bundle: its signed manifest, every journal's hash chain and signed anchor, the report against the journals",
		Long: `verify checks an evidence bundle written by ` + "`wirecheck certify --bundle`" + ` or ` + "`wirecheck merge`" + `:
every file its manifest.json lists is there with the SHA-256 it gives; every journal
(journals/*.jsonl, see docs/journal.md) is whole: its records numbered without a gap, each chained
to the line before it by SHA-256, the header first and the anchor last; and report.json agrees with
the journals: every case has its journal, with the verdict its journal records, and the run's
verdict is the one those verdicts give. With --pubkey, manifest.json must be signed by that
ed25519 key (manifest.json.sig) and so must every anchor. Each problem is one line naming the file
(and the record): an edited record, a dropped record, a truncated tail, a tampered anchor, an
unsigned or tampered manifest, a wrong key, a case whose verdict its journal does not hold.

Given a file instead of a directory, it checks that one journal the same way (the journal of
wirecheck monitor --journal).

Exit status: 0 the bundle verifies; 1 it does not; 3 usage error.`,
		Example: `  wirecheck keygen --out signing.pem
  wirecheck certify --runtime-cmd './mydaemon --core {core_url}' --bundle evidence --sign-key signing.pem
  wirecheck verify evidence --pubkey signing.pem.pub`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.ExactArgs(1)(cmd, args); err != nil {
				return usageError(err)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			pub, err := readPublicKey(pubkey)
			if err != nil {
				return usageError(err)
			}
			st, err := os.Stat(args[0])
			if err != nil {
				return usageError(fmt.Errorf("%s: not a bundle directory or a journal file", args[0]))
			}
			if !st.IsDir() {
				data, err := os.ReadFile(args[0])
				if err != nil {
					return usageError(err)
				}
				// One journal: wirecheck monitor --journal.
				return printVerified(cmd.OutOrStdout(), args[0], journal.BundleCheck{Journals: args[:1], Problems: journal.Verify(args[0], data, pub)}, pub, false)
			}
			check := journal.VerifyBundle(args[0], pub)
			check.Problems = append(check.Problems, reports.CheckVerdicts(args[0])...)
			return printVerified(cmd.OutOrStdout(), args[0], check, pub, true)
		},
	}
	verify.Flags().StringVar(&pubkey, "pubkey", "", "the ed25519 public key (PEM PKIX \"PUBLIC KEY\") manifest.json and every journal's anchor must be signed by")
	root.AddCommand(verify)

	var out string
	keygen := &cobra.Command{
		Use:   "keygen --out FILE",
		Short: "Make an ed25519 key pair for certify --sign-key (FILE) and verify --pubkey (FILE.pub)",
		Long: `keygen writes a new ed25519 private key to FILE (PEM PKCS #8 "PRIVATE KEY", mode 0600) and its
public key to FILE.pub (PEM PKIX "PUBLIC KEY"). OpenSSL makes the same formats:
  openssl genpkey -algorithm ed25519 -out FILE
  openssl pkey -in FILE -pubout -out FILE.pub`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.NoArgs(cmd, args); err != nil {
				return usageError(err)
			}
			if out == "" {
				return usageError(errors.New("give --out FILE"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			priv, pub, err := journal.GenerateKey()
			if err != nil {
				return err
			}
			for _, p := range []string{out, out + ".pub"} {
				if _, err := os.Stat(p); err == nil {
					return usageError(fmt.Errorf("%s exists: keygen never overwrites a key", p))
				}
			}
			if err := os.WriteFile(out, priv, 0o600); err != nil {
				return err
			}
			if err := os.WriteFile(out+".pub", pub, 0o644); err != nil {
				return err
			}
			k, _ := journal.ParsePublicKey(pub)
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (private) and %s (public), key id %s\n", out, filepath.Base(out)+".pub", journal.KeyID(k))
			return nil
		},
	}
	keygen.Flags().StringVar(&out, "out", "", "the private key's file; the public key goes to FILE.pub")
	root.AddCommand(keygen)
}

// readPublicKey reads a --pubkey (nil when path is empty: anchors are not checked against a key).
func readPublicKey(path string) (ed25519.PublicKey, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--pubkey: %w", err)
	}
	pub, err := journal.ParsePublicKey(data)
	if err != nil {
		return nil, fmt.Errorf("--pubkey %s: %w", path, err)
	}
	return pub, nil
}

// readSignKey reads certify's --sign-key.
func readSignKey(path string) (ed25519.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--sign-key: %w", err)
	}
	k, err := journal.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("--sign-key %s: %w", path, err)
	}
	return k, nil
}

// printVerified prints each problem on its own line, or what was verified.
func printVerified(out io.Writer, name string, check journal.BundleCheck, pub ed25519.PublicKey, bundle bool) error {
	for _, p := range check.Problems {
		fmt.Fprintln(out, p.Error())
	}
	if n := len(check.Problems); n > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%s does not verify: %d %s", name, n, plural(n, "problem", "problems"))}
	}
	n := len(check.Journals)
	journals := fmt.Sprintf("%d %s, hash chains whole, ", n, plural(n, "journal", "journals"))
	if pub != nil {
		journals += "every anchor signed by " + journal.KeyID(pub)
	} else {
		journals += "anchors not checked against a key (give --pubkey)"
	}
	if !bundle {
		fmt.Fprintf(out, "%s verifies: %s\n", name, journals)
		return nil
	}
	manifest := "manifest matches and is signed by " + check.ManifestKey
	switch {
	case check.ManifestKey == "":
		manifest = "manifest matches, not signed"
	case pub == nil:
		manifest = "manifest matches, its signature (key " + check.ManifestKey + ") not checked (give --pubkey)"
	}
	fmt.Fprintf(out, "%s verifies: %s, report.json agrees with the journals, %s\n", name, manifest, journals)
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

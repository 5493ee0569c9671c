package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/wirecheck/wirecheck/journal"
)

func init() {
	var pubkey string
	verify := &cobra.Command{
		Use:   "verify BUNDLE",
		Short: "Check an evidence bundle: its manifest, every journal's hash chain and signed anchor",
		Long: `verify checks an evidence bundle written by ` + "`wirecheck certify --bundle`" + `: every file its
manifest.json lists is there with the SHA-256 it gives, and every journal (journals/*.jsonl, see
docs/journal.md) is whole: its records numbered without a gap, each chained to the line before it
by SHA-256, the header first and the anchor last. With --pubkey, every anchor must be signed by
that ed25519 key. Each problem is one line naming the file and the record: an edited record, a
dropped record, a truncated tail, a tampered anchor, a wrong key.

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
			journals, probs := []string{args[0]}, []journal.Problem(nil)
			if st.IsDir() {
				journals, probs = journal.VerifyBundle(args[0], pub)
			} else {
				data, err := os.ReadFile(args[0])
				if err != nil {
					return usageError(err)
				}
				probs = journal.Verify(args[0], data, pub) // one journal: wirecheck monitor --journal
			}
			out := cmd.OutOrStdout()
			for _, p := range probs {
				fmt.Fprintln(out, p.Error())
			}
			if len(probs) > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%s does not verify: %d %s", args[0], len(probs), plural(len(probs), "problem", "problems"))}
			}
			signed := "hash chains whole, anchors not checked against a key (give --pubkey)"
			if pub != nil {
				signed = "hash chains whole, every anchor signed by " + journal.KeyID(pub)
			}
			fmt.Fprintf(out, "%s verifies: manifest matches, %d %s, %s\n", args[0], len(journals), plural(len(journals), "journal", "journals"), signed)
			return nil
		},
	}
	verify.Flags().StringVar(&pubkey, "pubkey", "", "the ed25519 public key (PEM PKIX \"PUBLIC KEY\") every journal's anchor must be signed by")
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

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

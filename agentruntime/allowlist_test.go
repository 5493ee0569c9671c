package agentruntime_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	ar "github.com/wirecheck/wirecheck/agentruntime"
)

var _ = Describe("EnvAllowlist", Label("allowlist"), func() {
	const raw = `--url=${CORE_HOST}/x --token-file=${TOKEN_FILE:-/run/token} --again=${CORE_HOST}`

	denied := func(err error) []string {
		GinkgoHelper()
		var d *ar.DisallowedEnvError
		Expect(errors.As(err, &d)).To(BeTrue(), "got %v", err)
		return d.Names
	}

	It("denies everything by default and names every offender once", func() {
		_, err := ar.DenyAll().Check(raw)
		Expect(denied(err)).To(Equal([]string{"CORE_HOST", "TOKEN_FILE"}))
		Expect(err.Error()).To(ContainSubstring("CORE_HOST, TOKEN_FILE"))
		var zero ar.EnvAllowlist
		_, err = zero.Check(raw)
		Expect(denied(err)).To(Equal([]string{"CORE_HOST", "TOKEN_FILE"}), "the zero value is deny-all")
	})

	It("names only the offender under a partial allowlist", func() {
		_, err := ar.AllowEnv("CORE_HOST").Check(raw)
		Expect(denied(err)).To(Equal([]string{"TOKEN_FILE"}))
	})

	It("still needs the name allowed when the reference has a default", func() {
		_, err := ar.AllowEnv().Check("${ONLY_DEFAULT:-fallback}")
		Expect(denied(err)).To(Equal([]string{"ONLY_DEFAULT"}))
		names, err := ar.AllowEnv("ONLY_DEFAULT").Check("${ONLY_DEFAULT:-fallback}")
		Expect(err).NotTo(HaveOccurred())
		Expect(names).To(Equal([]string{"ONLY_DEFAULT"}))
	})

	It("returns exactly the referenced names, not the whole allowlist", func() {
		names, err := ar.AllowEnv("CORE_HOST", "TOKEN_FILE", "UNUSED").Check(raw, "${CORE_HOST}")
		Expect(err).NotTo(HaveOccurred())
		Expect(names).To(Equal([]string{"CORE_HOST", "TOKEN_FILE"}))
	})

	It("treats text without a well-formed reference as literal", func() {
		names, err := ar.DenyAll().Check("plain $HOME ${1BAD} ${ unterminated ${")
		Expect(err).NotTo(HaveOccurred())
		Expect(names).To(BeEmpty())
	})

	It("checks the raw text, so its answer cannot reveal whether a variable is set", func() {
		GinkgoT().Setenv("PROBED_SECRET", "set")
		_, set := ar.DenyAll().Check("${PROBED_SECRET}")
		_, unset := ar.DenyAll().Check("${PROBED_UNSET}")
		Expect(denied(set)).To(Equal([]string{"PROBED_SECRET"}))
		Expect(denied(unset)).To(Equal([]string{"PROBED_UNSET"}))
	})

	It("expands references once, defaults when unset, and names what is missing", func() {
		env := map[string]string{"A": "${B}", "EMPTY": ""}
		lookup := func(n string) (string, bool) { v, ok := env[n]; return v, ok }
		Expect(ar.ExpandEnv("x=${A} y=${EMPTY:-d} z=${NOPE:-dflt} w=${NOPE2:-}", lookup)).
			To(Equal("x=${B} y=d z=dflt w="), "a value is not expanded again; :- also covers an empty value")
		_, err := ar.ExpandEnv("${NOPE} ${ALSO_NOPE} ${NOPE}", lookup)
		Expect(err).To(MatchError(ContainSubstring("ALSO_NOPE, NOPE")))
	})

	It("reports its names sorted", func() {
		Expect(ar.AllowEnv("B", "A").Names()).To(Equal([]string{"A", "B"}))
		Expect(ar.AllowEnv("A").Allows("A")).To(BeTrue())
		Expect(ar.DenyAll().Allows("A")).To(BeFalse())
	})
})

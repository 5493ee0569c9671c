# wirecheck — conformance suite and wire simulator for the Core ↔ Runtime daemon protocol.
GO        ?= go
FUZZTIME  ?= 10s
PKGS      := ./...

.PHONY: test check-runtime-contract fuzz lint bench schema

## test: every test of every package (what .ci/run calls).
test:
	$(GO) test -count=1 $(PKGS)

## check-runtime-contract: the regression gate: wire validators, then the scenario suite on both sides.
check-runtime-contract:
	$(GO) test -count=1 ./proto/...
	@if [ -d conformance ]; then $(GO) test -count=1 ./conformance/... ; fi

## fuzz: a short pass of every fuzz target (FUZZTIME each); seeds it finds land in testdata/fuzz.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

## lint: gofmt and go vet.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

## bench: the benchmarks recorded in docs/performance.md.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## schema: regenerate the committed JSON Schemas.
schema:
	$(GO) run ./proto/internal/genschema -out schema

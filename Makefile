# wirecheck — conformance suite and wire simulator for the Core ↔ Runtime daemon protocol.
GO        ?= go
FUZZTIME  ?= 10s
PKGS      := ./...

.PHONY: test stress mutants check-runtime-contract fuzz lint bench schema build certify-reference reference-image certify-reference-image

## test: every test of every package (what .ci/run calls).
test:
	$(GO) test -count=1 -timeout 25m $(PKGS)

## stress: the gate, the tests that wait on goroutines, sockets and processes, and a certification of
## the reference as a child process, while busy loops hold the load average above 3 x the CPUs
## (.ci/hog); STRESS_RUNS=N plays it N times in a row. What fails here raced the wall clock.
stress:
	.ci/stress --build-only
	.ci/hog .ci/stress --prebuilt

## mutants: the mutation kill matrix: the Runtime catalog against every single-bug variant of the reference
## Runtime, and the Core scenarios against every single-bug variant of the reference Core (both built only with
## -tags wirecheck_mutants). Every mutant is judged and shown, with the score per family; it fails on a survivor
## runner/mutants/survivors/<FAMILY>.tsv does not list, on a listed one that was killed, and on a kill record
## (scenarios/rules/kills, which coverage reads) that the run contradicts. A clean run maps which scenarios reach each mutant's point
## (out/mutants/*-reach.json); a mutant plays only those, in worker processes side by side. UPDATE=1 rewrites
## docs/mutants.md and the kill records; POINT=regexp judges only the mutants whose point matches (a focused run while writing one;
## never with UPDATE); WORKERS=n sets the worker processes per side (default 2 per CPU).
mutants:
	$(GO) test -count=1 -timeout 20m -tags wirecheck_mutants -v ./runner/mutants/... $(if $(UPDATE),-p 1) -args $(if $(UPDATE),-update) $(if $(POINT),-point '$(POINT)') $(if $(WORKERS),-workers $(WORKERS))

## check-runtime-contract: the regression gate: wire validators and handshake rules, then the scenario suite on both sides
## (self-check, reference Runtime in process and as a child process, reference Core).
check-runtime-contract:
	$(GO) test -count=1 ./proto/... ./transport/... ./scenarios/... ./conformance/...

## build: the wirecheck binary in bin/.
build:
	$(GO) build -o bin/wirecheck ./cmd/wirecheck

## certify-reference: the main job: certify the reference Runtime as a child process and print the
## report (the long-timer scenarios, minutes of real time, are left to the gate's virtual clock).
# The HTML quotes the spec sections the scenarios cite when the spec is next to the checkout.
SPEC_FLAGS := $(foreach d,$(wildcard ../shared/spec) docs,--spec $(d))

certify-reference: build
	@mkdir -p out
	bin/wirecheck certify --runtime-cmd 'bin/wirecheck runtime --server {core_url} --device {device_id}' \
	  --label-filter '!long-timer' --parallel 8 $(SPEC_FLAGS) \
	  --junit out/junit.xml --json out/report.json --html out/report.html

## reference-image: a container image of the reference Runtime, without a registry.
REFERENCE_IMAGE ?= localhost/wirecheck-reference:dev
ENGINE ?= podman
reference-image:
	@mkdir -p out/image
	CGO_ENABLED=0 $(GO) build -o out/image/wirecheck ./cmd/wirecheck
	tar -C out/image -cf out/rootfs.tar wirecheck
	$(ENGINE) import --change 'ENTRYPOINT ["/wirecheck", "runtime"]' out/rootfs.tar $(REFERENCE_IMAGE)

## certify-reference-image: the same certification against that image.
certify-reference-image: build reference-image
	bin/wirecheck certify --runtime-image $(REFERENCE_IMAGE) --engine $(ENGINE) --label-filter '!long-timer' --parallel 8 $(SPEC_FLAGS) \
	  --junit out/junit.xml --json out/report.json --html out/report.html

## fuzz: a short pass of every fuzz target (FUZZTIME each); seeds it finds land in testdata/fuzz.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

## lint: gofmt, go vet and staticcheck (pinned in go.mod as a tool).
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) vet -tags wirecheck_mutants $(PKGS)
	$(GO) tool staticcheck $(PKGS)

## bench: the benchmarks recorded in docs/performance.md.
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## schema: regenerate the committed JSON Schemas.
schema:
	$(GO) run ./proto/internal/genschema -out schema

# Finledger: the two commands a new machine needs are `make dev` and `make test`.
GO ?= go
SHELL := /bin/bash

.PHONY: dev test deps test-images test-go test-deploy test-compose lint-openapi build images bench bench-app bench-import fuzz torture screenshots

# Run the whole service locally: private PostgreSQL, migrations, API, a dev token.
dev:
	$(GO) run ./cmd/finledger dev

# `make test`, in this order: the module downloads of the three Go modules (the service,
# deploy/, tools/openapilint), axe-core and the MCP TypeScript SDK, side by side; the
# images, where a Docker engine answers (test-images); then, side by side, the lint of
# the served OpenAPI document, the service's vet and tests on real PostgreSQL and NATS
# servers the tests start themselves (containers of those images where an engine
# answers, else the installed binaries), and the checks of deploy/ (a module of its own,
# so the service does not carry their libraries); last, deploy/compose.yaml run as
# written (test-compose), alone, since it changes the host's network interfaces under
# the browser tests. Each step prints one line when it passes and all it has when it
# fails; a green run ends with the time it took.
test:
	@start=$$(date +%s) && \
		$(MAKE) --no-print-directory deps && \
		$(MAKE) --no-print-directory test-images && \
		$(MAKE) --no-print-directory -j3 --output-sync=line lint-openapi test-go test-deploy && \
		$(MAKE) --no-print-directory test-compose && \
		echo "make test: passed in $$(( $$(date +%s) - start ))s"

# The tests' builds are -trimpath builds: without it a package's entry in Go's build cache
# names the folder it was compiled in, so a fresh clone compiles every package of the
# service again however often this machine has built them; with it a clone in a new
# folder finds them compiled (about 290 s of CPU less across vet and the two test runs
# here). GOFLAGS, not a flag of each command, so that the builds the tests run themselves
# (cmd/finledger's process tests) are -trimpath builds too. The images keep the user's
# GOFLAGS: their Dockerfiles pass -trimpath themselves.
test-go lint-openapi test-deploy test-compose: export GOFLAGS := $(strip $(filter-out -trimpath,$(GOFLAGS)) -trimpath)

# Whether the tests run on containers: FINLEDGER_TEST_CONTAINERS=off says no, =on says
# yes (and fails without an engine), unset asks the engine (internal/testkit/containers).
CONTAINERS = case "$${FINLEDGER_TEST_CONTAINERS:-}" in \
	off) false;; \
	*) if timeout 10 docker info >/dev/null 2>&1; then true; \
		elif [ "$${FINLEDGER_TEST_CONTAINERS:-}" = on ]; then \
			echo "FINLEDGER_TEST_CONTAINERS=on, but no Docker engine answers (docker info): start one with bash deploy/container/engine.sh" >&2; exit 1; \
		else false; fi;; \
	esac

# The images the tests' containers and test-compose run, built (or found in docker's
# cache, 1 to 3 s) where the tests run on containers.
test-images:
	@if $(CONTAINERS); then $(MAKE) --no-print-directory images; \
	else echo "images: none built; the tests run on the installed binaries (FINLEDGER_TEST_CONTAINERS=$${FINLEDGER_TEST_CONTAINERS:-unset}, or no Docker engine answers: bash deploy/container/engine.sh starts one)"; fi

# deploy/compose.yaml brought up with Docker Compose on those images and drilled
# (cmd/finledger's TestComposeDeployment: writes through the load balancer while a NATS
# node and an instance are stopped, nothing lost), where the tests run on containers.
test-compose:
	@if $(CONTAINERS); then \
		if out=$$(FINLEDGER_TEST_COMPOSE=1 $(GO) test -count=1 -timeout 15m -run '^TestComposeDeployment$$' -v ./cmd/finledger 2>&1); then \
			echo "compose: $$(echo "$$out" | grep -o 'composetest: writes acknowledged [0-9]*.*webhook deliveries [0-9]*, missing [0-9]*' | head -1) ($$(echo "$$out" | awk '/^ok/ {print $$3}'))"; \
		else echo "$$out"; echo "compose: FAILED"; exit 1; fi; \
	else echo "compose: not run; it needs the tests on containers (a Docker engine, FINLEDGER_TEST_CONTAINERS not off)"; fi

# Modules, axe-core (the browser tests' accessibility checker, pinned by the lockfile of
# tools/axe) and the MCP TypeScript SDK (the third-party client of the MCP server's
# tests, pinned by tools/mcpclient), fetched side by side; quiet unless one fails.
deps:
	@pids="" && \
		{ $(GO) mod download & pids="$$pids $$!"; } && \
		{ (cd deploy && $(GO) mod download) & pids="$$pids $$!"; } && \
		{ (cd tools/openapilint && $(GO) mod download) & pids="$$pids $$!"; } && \
		{ npm ci --prefix tools/axe --no-audit --no-fund --loglevel=error >/dev/null & pids="$$pids $$!"; } && \
		{ npm ci --prefix tools/mcpclient --no-audit --no-fund --loglevel=error >/dev/null & pids="$$pids $$!"; } && \
		rc=0 && for p in $$pids; do wait $$p || rc=1; done && exit $$rc

# Packages tested without -race. The race detector builds every package a second time,
# instrumented, and slows tests 2 to 20 times (Go's documentation), so it is spared where
# the code has no goroutines or shared state of its own; every other package (a new one
# too) is race-tested. These have neither:
#   internal/fx             rate parsing, storage and lookup: straight-line code
#   internal/sealbox        sealing of secrets: pure functions
#   queries                 the read side's SQL, one statement per call
#   webhooks/safehttp       an HTTP client's dialer rules; its tests' servers are httptest's
#   httpapi/openapiclient   generated client, used from one goroutine by its tests
#   statement               bank files' readers: straight-line code over one io.Reader
#   webapp/browsertest      the app's scenarios in Chromium: tests alone, no code of their
#                           own; the server they drive is race-tested by the tests of
#                           httpapi and webapp, and Chromium, not Go, is most of their time
# A package moved or renamed drops out of this list and is race-tested, never skipped.
NORACE := internal/fx internal/sealbox queries statement webhooks/safehttp httpapi/openapiclient webapp/browsertest
MODULE := github.com/finledger/finledger

# The race-tested packages whose tests take longest, given to go test first: it starts
# packages in the order it is given them, so the short ones then run beside these
# instead of before them.
LONGEST := httpapi cmd/finledger ledger eventstore

# go vet, then the tests (-race where it finds things): an `ok` line as each package
# passes, the failing tests' output in full (go test shows a passing test's output only
# with -v), and a count at the end. The two runs, with and without -race, go side by
# side: the browser tests, the longest package, wait on Chromium more than they compute.
test-go:
	@start=$$(date +%s) && $(GO) vet ./... && echo "go vet: clean ($$(( $$(date +%s) - start ))s)"
	@start=$$(date +%s) && pkgs=$$($(GO) list ./...) && norace=" $(addprefix $(MODULE)/,$(NORACE)) " && \
	race=$$(for p in $$pkgs; do case "$$norace" in *" $$p "*) ;; *) echo $$p;; esac; done) && \
	longest=" $(addprefix $(MODULE)/,$(LONGEST)) " && \
	race=$$(for p in $$race; do case "$$longest" in *" $$p "*) echo $$p;; esac; done; \
		for p in $$race; do case "$$longest" in *" $$p "*) ;; *) echo $$p;; esac; done) && \
	plain=$$(for p in $$pkgs; do case "$$norace" in *" $$p "*) echo $$p;; esac; done) && \
	log=$$(mktemp) && \
	{ $(GO) test -count=1 -race -timeout 20m $$race & racing=$$!; \
	  rc=0; $(GO) test -count=1 -timeout 20m $$plain || rc=1; wait $$racing || rc=1; exit $$rc; } 2>&1 | tee "$$log" | { grep -v 'no test files$$' || true; }; \
	rc=$${PIPESTATUS[0]}; \
	echo "go test: $$(grep -c '^ok' "$$log") packages passed$$(n=$$(grep -c '^FAIL[[:space:]]' "$$log"); \
		[ "$$n" = 0 ] || echo ", $$n FAILED"); $$(echo $$race | wc -w) of the $$(echo $$pkgs | wc -w) run with -race ($$(( $$(date +%s) - start ))s)"; \
	rm -f "$$log"; exit $$rc

# The checks of deploy/ (deploy/check): their vet and tests, one line when they pass.
test-deploy:
	@cd deploy && if out=$$($(GO) vet ./... 2>&1 && $(GO) test -count=1 ./... 2>&1); then \
		echo "deploy: vet clean, checks passed $$(echo "$$out" | awk '/^ok/ {print "(" $$3 ")"}')"; \
	else echo "$$out"; echo "deploy: FAILED"; exit 1; fi

# Lint the OpenAPI document the API serves with vacuum, pinned in tools/openapilint (a
# module of its own; `go tool` keeps the built binary in the build cache), under its
# ruleset.yaml (vacuum's recommended rules less those that do not apply, each with its
# reason) and ignore.yaml (findings the document means). A warning or an error fails and
# all is shown; a pass is one line, then the infos: the document's known faults. vacuum
# is built first: beside test-go on a cold cache, the document's writer then finds the
# service's packages compiled by go vet, not compiled a second time at once.
lint-openapi:
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	(cd tools/openapilint && $(GO) tool vacuum version >/dev/null) && \
	$(GO) run ./internal/openapidoc -o "$$dir/openapi.json" && cd tools/openapilint && \
	if $(GO) tool vacuum lint --ruleset ruleset.yaml --ignore-file ignore.yaml --fail-severity warn --min-score 0 \
		--details --no-clip --no-style --no-banner --remote=false "$$dir/openapi.json" >"$$dir/lint.txt" 2>&1; then \
		awk '$$1 == "total" && NF == 4 { n = $$4 } \
			/^[^ ]+:[0-9]+:[0-9]+ +● / { sub(/^.* ● +/, ""); sub(/ +$$/, ""); msg = $$0; getline; infos = infos "  " msg ": " $$0 "\n" } \
			END { printf "openapi: 0 errors, 0 warnings"; \
				if (n > 0) printf ", %d infos (known faults of the document, see tools/openapilint/ruleset.yaml):\n%s", n, infos; \
				else print "" }' "$$dir/lint.txt"; \
	else cat "$$dir/lint.txt"; echo "openapi: lint FAILED"; exit 1; fi

build:
	$(GO) build -o bin/finledger ./cmd/finledger

# `make images`: every image deploy/ names, with the tags compose.yaml gives them:
# finledger:local, finledger-postgres:local, finledger-nats:local, finledger-caddy:local.
# deploy/container/engine.sh checks the Docker daemon (starting Debian's dockerd where it
# may) and names the docker command that builds with BuildKit; bases.sh makes, once per
# machine, the bases the Dockerfiles are given here instead of their public defaults
# (golang, distroless, debian: no registry is needed): a debootstrapped Debian, it with
# the host's Go, and a static runtime base. The builds use the host's network (module
# proxy, Debian's archive) and the host's Go settings; a second run is docker's cache.
IMAGE_BASES = DEBIAN_BASE=finledger-base/debian:bookworm-slim \
	GO_BASE=finledger-base/golang:$(patsubst go%,%,$(shell $(GO) env GOVERSION))-bookworm \
	STATIC_BASE=finledger-base/static-debian12:nonroot
NATS_VERSION = $(shell awk '$$1 == "github.com/nats-io/nats-server/v2" {print $$2}' go.mod)
images:
	@start=$$(date +%s) && docker=$$(deploy/container/engine.sh) && \
	export DOCKER="$$docker" DOCKER_BUILDKIT=1 $(IMAGE_BASES) && deploy/container/bases.sh && \
	gobuild=(--network host --build-arg GO_IMAGE="$$GO_BASE" --build-arg RUNTIME_IMAGE="$$STATIC_BASE" \
		--build-arg GOPROXY="$$($(GO) env GOPROXY)" --build-arg GOSUMDB="$$($(GO) env GOSUMDB)" \
		--build-arg GOFLAGS="$$($(GO) env GOFLAGS)") && \
	image() { local t=$$(date +%s) tag=$$1; shift; \
		"$$docker" build -q -t "$$tag" "$$@" >/dev/null && echo "images: $$tag ($$(( $$(date +%s) - t ))s)"; } && \
	image finledger:local "$${gobuild[@]}" -f deploy/container/Dockerfile . && \
	image finledger-postgres:local --network host --build-arg BASE="$$DEBIAN_BASE" \
		-f deploy/container/pg_auto_failover.Dockerfile deploy && \
	image finledger-nats:local "$${gobuild[@]}" --build-arg NATS_VERSION=$(NATS_VERSION) \
		-f deploy/container/nats.Dockerfile deploy && \
	image finledger-caddy:local "$${gobuild[@]}" -f deploy/container/caddy.Dockerfile deploy && \
	echo "make images: done in $$(( $$(date +%s) - start ))s"

# The cluster fault test at size: three instances, one NATS, and PostgreSQL as a
# primary with a synchronous standby (pg_auto_failover); 50 SIGKILLs of instances
# (leaders first), 5 outages of both database servers and 10 failovers (SIGKILLs of
# the primary, so the two servers take turns) under 32 writers. Each FINLEDGER_TORTURE_*
# setting can be overridden: make torture TORTURE_CYCLES=200; TORTURE_FAILOVERS=0 runs
# it on one PostgreSQL server.
TORTURE_CYCLES ?= 50
TORTURE_OUTAGES ?= 5
TORTURE_FAILOVERS ?= 10
TORTURE_WRITERS ?= 32
TORTURE_WORKSPACES ?= 6
torture:
	FINLEDGER_TORTURE_CYCLES=$(TORTURE_CYCLES) FINLEDGER_TORTURE_OUTAGES=$(TORTURE_OUTAGES) \
	FINLEDGER_TORTURE_FAILOVERS=$(TORTURE_FAILOVERS) \
	FINLEDGER_TORTURE_WRITERS=$(TORTURE_WRITERS) FINLEDGER_TORTURE_WORKSPACES=$(TORTURE_WORKSPACES) \
		$(GO) test -count=1 -timeout 2h -run '^TestClusterFaults$$' -v ./cmd/finledger

# The table of BENCHMARKS.md: five loads against the server run as its own process,
# each in three rounds alternating with pgbench (about ten minutes). The other phases
# (depth, webhook delay, a million events) are flags of the same command:
# go run ./cmd/finledger-bench -h.
bench: build
	$(GO) run ./cmd/finledger-bench -table -server bin/finledger

# The web app's figures of BENCHMARKS.md: the transactions page of a workspace of
# 100,000 transactions in Chromium, ten cold browsers, against `finledger dev`.
bench-app: build
	$(GO) run ./cmd/finledger-bench -app 100000 -server bin/finledger

# The statement import's figures of BENCHMARKS.md: a 100,000-row CSV statement previewed,
# committed into a wallet of a million transactions and undone, three rounds each on a fresh
# copy of the seeded database, beside pgbench; then a 50 MB CAMT.053 file previewed.
bench-import: build
	$(GO) run ./cmd/finledger-bench -import 100000 -import-depth 1000000 -server bin/finledger

# Fuzz the request parsers and the bank statements' readers for a minute each (the
# statements' large seeds are shrunk for 3 s at most, or shrinking stalls).
fuzz:
	$(GO) test ./httpapi -run '^$$' -fuzz FuzzParseBody -fuzztime 60s
	$(GO) test ./httpapi -run '^$$' -fuzz FuzzTransactionFilter -fuzztime 60s
	$(GO) test ./httpapi -run '^$$' -fuzz FuzzPushSubscriptionBody -fuzztime 60s
	$(GO) test ./httpapi -run '^$$' -fuzz FuzzRealtimeToken -fuzztime 60s
	for f in FuzzCSV FuzzQIF FuzzOFX FuzzCAMT FuzzMT940; do \
		$(GO) test ./statement -run '^$$' -fuzz "^$$f$$" -fuzztime 60s -fuzzminimizetime 3s || exit 1; done

# Draw every page of the web app again for docs/screenshots (English at 1280 px, Spanish
# at 360 px), from the tour test, which also checks each page with axe.
screenshots:
	FINLEDGER_DOCS_SCREENSHOTS=docs/screenshots $(GO) test -count=1 -run '^TestTourOfEveryPage$$' ./webapp/browsertest

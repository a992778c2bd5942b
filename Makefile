# Finledger: the two commands a new machine needs are `make dev` and `make test`.
GO ?= go

.PHONY: dev test lint-openapi build bench bench-app fuzz torture screenshots

# Run the whole service locally: private PostgreSQL, migrations, API, a dev token.
dev:
	$(GO) run ./cmd/finledger dev

# The lint of the served OpenAPI document, the whole test suite on real PostgreSQL
# servers the tests start themselves, then the checks of deploy/ (a module of its own, so
# the service does not carry their libraries). The browser tests check accessibility with
# axe-core, pinned by the lockfile of tools/axe.
test: lint-openapi
	npm ci --prefix tools/axe --no-audit --no-fund --loglevel=error >/dev/null
	$(GO) vet ./...
	$(GO) test -count=1 -race -timeout 20m ./...
	cd deploy && $(GO) vet ./... && $(GO) test -count=1 ./...

# Lint the OpenAPI document the API serves with vacuum's recommended rules: any error
# fails, warnings are shown. vacuum is pinned in tools/openapilint, a module of its own.
lint-openapi:
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
		$(GO) run ./internal/openapidoc -o "$$dir/openapi.json" && \
		cd tools/openapilint && $(GO) tool vacuum lint --details --errors --no-style --no-banner --remote=false --min-score 0 "$$dir/openapi.json"

build:
	$(GO) build -o bin/finledger ./cmd/finledger

# The cluster fault test at size: three instances, one PostgreSQL, one NATS; 50
# SIGKILLs of instances (leaders first) and 5 PostgreSQL outages under 32 writers.
# Each FINLEDGER_TORTURE_* setting can be overridden: make torture TORTURE_CYCLES=200.
TORTURE_CYCLES ?= 50
TORTURE_OUTAGES ?= 5
TORTURE_WRITERS ?= 32
TORTURE_WORKSPACES ?= 6
torture:
	FINLEDGER_TORTURE_CYCLES=$(TORTURE_CYCLES) FINLEDGER_TORTURE_OUTAGES=$(TORTURE_OUTAGES) \
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

# Fuzz the request parsers for a minute each.
fuzz:
	$(GO) test ./httpapi -run '^$$' -fuzz FuzzParseBody -fuzztime 60s
	$(GO) test ./httpapi -run '^$$' -fuzz FuzzTransactionFilter -fuzztime 60s
	$(GO) test ./httpapi -run '^$$' -fuzz FuzzPushSubscriptionBody -fuzztime 60s
	$(GO) test ./httpapi -run '^$$' -fuzz FuzzRealtimeToken -fuzztime 60s

# Draw every page of the web app again for docs/screenshots (English at 1280 px, Spanish
# at 360 px), from the tour test, which also checks each page with axe.
screenshots:
	FINLEDGER_DOCS_SCREENSHOTS=docs/screenshots $(GO) test -count=1 -run '^TestTourOfEveryPage$$' ./webapp

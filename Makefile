# Finledger: the two commands a new machine needs are `make dev` and `make test`.
GO ?= go

.PHONY: dev test build bench fuzz

# Run the whole service locally: private PostgreSQL, migrations, API, a dev token.
dev:
	$(GO) run ./cmd/finledger dev

# The whole test suite on real PostgreSQL servers the tests start themselves.
test:
	$(GO) vet ./...
	$(GO) test -count=1 -race -timeout 20m ./...

build:
	$(GO) build -o bin/finledger ./cmd/finledger

# Throughput and latency figures for BENCHMARKS.md.
bench:
	$(GO) run ./cmd/finledger bench

# Fuzz the request parsers for a minute each.
fuzz:
	$(GO) test ./httpapi -run '^$$' -fuzz FuzzParseBody -fuzztime 60s
	$(GO) test ./httpapi -run '^$$' -fuzz FuzzTransactionFilter -fuzztime 60s
	$(GO) test ./httpapi -run '^$$' -fuzz FuzzPushSubscriptionBody -fuzztime 60s
	$(GO) test ./httpapi -run '^$$' -fuzz FuzzRealtimeToken -fuzztime 60s

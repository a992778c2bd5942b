// Package check holds no code: its tests read the files of deploy/ with the libraries
// of their own ecosystems (compose-go, the Kubernetes API types, BuildKit's Dockerfile
// parser, go-systemd, Caddy, the NATS server's configuration loader, a shell parser for
// local/run.sh) and check the topology they describe; CloudNativePG's manifest is read
// into types of its own (cnpg_test.go). No container engine is needed. Run them with
// `cd deploy && go test ./...` (make test does).
package check

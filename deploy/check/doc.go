// Package check holds no code: its tests read the files of deploy/ with the libraries
// of their own ecosystems (compose-go, the Kubernetes API types, BuildKit's Dockerfile
// parser, go-systemd, Caddy, the NATS server's configuration loader) and check the
// topology they describe. No container engine is needed. Run them with
// `cd deploy && go test ./...` (make test does).
package check

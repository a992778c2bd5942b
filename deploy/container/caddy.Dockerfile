# The load balancer's image of compose.yaml: Caddy built from its Go module
# (github.com/caddyserver/caddy/v2/cmd/caddy, the standard modules), static, on
# distroless, run as a user without privileges. It runs as the caddy:alpine image it
# stands in for does: `caddy run` on /etc/caddy/Caddyfile (compose mounts
# caddy/Caddyfile there), its state under /config and /data. Build from deploy/:
#   docker build -f container/caddy.Dockerfile -t finledger-caddy .
# The bases are build arguments whose defaults are the public images (Dockerfile says
# more); deploy/check (go test) parses this file with BuildKit's parser and checks it.

ARG GO_IMAGE=golang:1.26-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM ${GO_IMAGE} AS build
ARG CADDY_VERSION=v2.11.9
ARG GOPROXY GOSUMDB GOFLAGS
ENV CGO_ENABLED=0
# Built as the main module, Caddy finds no version of its own in the build information
# (it looks for itself among the dependencies, as xcaddy builds it): CustomVersion says it.
# The module and build caches: cache mounts shared with the other images' builds.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    GOBIN=/out go install -trimpath \
      -ldflags="-s -w -X github.com/caddyserver/caddy/v2.CustomVersion=${CADDY_VERSION}" \
      github.com/caddyserver/caddy/v2/cmd/caddy@${CADDY_VERSION} \
 && install -D /out/caddy /out/root/usr/local/bin/caddy \
 && install -d -o 65532 -g 65532 /out/root/config /out/root/data

FROM ${RUNTIME_IMAGE}
# caddy, and /config and /data owned by the user it runs as (one tree copied whole: a
# directory named as COPY's source gives its contents, not its owner).
COPY --from=build /out/root/ /
ENV XDG_CONFIG_HOME=/config \
    XDG_DATA_HOME=/data
USER 65532:65532
# The Caddyfile's one site (:8080); nothing below 1024, which a user without privileges
# could not bind.
EXPOSE 8080
CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]

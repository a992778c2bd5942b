# The NATS image of compose.yaml: nats-server built from its Go module, at the version
# the service's go.mod requires (github.com/nats-io/nats-server/v2; deploy/check holds
# the two together), static, on distroless, run as a user without privileges. Like the
# nats:alpine image it stands in for, its entry point is nats-server, so compose's
# command is the server's flags. Build from deploy/:
#   docker build -f container/nats.Dockerfile -t finledger-nats .
# The bases are build arguments whose defaults are the public images (Dockerfile says
# more); deploy/check (go test) parses this file with BuildKit's parser and checks it.

ARG GO_IMAGE=golang:1.26-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM ${GO_IMAGE} AS build
ARG NATS_VERSION=v2.15.2
ARG GOPROXY GOSUMDB GOFLAGS
ENV CGO_ENABLED=0
# The module and build caches: cache mounts shared with the other images' builds.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    GOBIN=/out go install -trimpath -ldflags="-s -w" github.com/nats-io/nats-server/v2@${NATS_VERSION}
# compose's health check asks the monitoring port with wget, as it did in the alpine
# image: busybox's, static, which runs as wget by that name.
RUN apt-get update \
 && apt-get install -y --no-install-recommends busybox-static \
 && install -D /bin/busybox /out/root/usr/local/bin/wget \
 && rm -rf /var/lib/apt/lists/* \
 && install -d -o 65532 -g 65532 /out/root/data \
 && mv /out/nats-server /out/root/usr/local/bin/

FROM ${RUNTIME_IMAGE}
# nats-server, wget, and JetStream's store (nats/nats.conf: store_dir /data), owned by
# the user the server runs as, as a volume mounted there starts out. (One tree copied
# whole: a directory named as COPY's source gives its contents, not its owner.)
COPY --from=build /out/root/ /
USER 65532:65532
# Clients, cluster routes, monitoring (/healthz).
EXPOSE 4222 6222 8222
ENTRYPOINT ["/usr/local/bin/nats-server"]

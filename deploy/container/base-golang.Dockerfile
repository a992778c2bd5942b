# A Go build image for a machine without an image registry (bases.sh): the local Debian
# base, CA certificates (for the module proxy) and the host's Go toolchain, laid out as
# the official golang image lays it out. It has no C compiler: the builds on it are
# static (CGO_ENABLED=0). The build context is the host's GOROOT:
#   docker build --build-arg BASE=finledger-base/debian:bookworm-slim \
#     -f deploy/container/base-golang.Dockerfile "$(go env GOROOT)"

ARG BASE=debian:bookworm-slim
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY . /usr/local/go
ENV GOTOOLCHAIN=local \
    GOPATH=/go \
    PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
WORKDIR /go

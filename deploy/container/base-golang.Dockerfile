# A Go build image for a machine without an image registry (bases.sh): the local Debian
# base, CA certificates and the host's Go toolchain, laid out as the official golang
# image lays it out. It has no C compiler: the builds on it are static (CGO_ENABLED=0).
# Its build context is a tar bases.sh writes: this file as Dockerfile, go/ (the host's
# GOROOT) and ca-certificates/ (the host's local CAs, /usr/local/share/ca-certificates:
# the builds reach the module proxy by the host's way out, which may re-sign TLS). Only
# this build image trusts them; the runtime images have Debian's CAs alone.

ARG BASE=debian:bookworm-slim
FROM ${BASE}
COPY ca-certificates/ /usr/local/share/ca-certificates/
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && update-ca-certificates >/dev/null
COPY go /usr/local/go
ENV GOTOOLCHAIN=local \
    GOPATH=/go \
    PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
WORKDIR /go

# A runtime base for static binaries, for a machine without an image registry
# (bases.sh): what gcr.io/distroless/static-debian12:nonroot gives, from Debian's
# packages: CA certificates, time zones, /etc/passwd and /etc/group with root, nobody
# and nonroot (65532), /tmp, and nothing else (no shell). Build from deploy/container:
#   docker build --build-arg BASE=finledger-base/debian:bookworm-slim \
#     -f base-static.Dockerfile .

ARG BASE=debian:bookworm-slim
FROM ${BASE} AS files
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates tzdata \
 && rm -rf /var/lib/apt/lists/*
RUN install -d -m 0755 /out/etc/ssl/certs /out/usr/share \
 && install -d -m 1777 /out/tmp \
 && install -d -m 0700 -o 65532 -g 65532 /out/home/nonroot \
 && install -d -m 0700 /out/root \
 && cp /etc/ssl/certs/ca-certificates.crt /out/etc/ssl/certs/ \
 && cp -a /usr/share/zoneinfo /out/usr/share/ \
 && printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' \
      'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
      'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >/out/etc/passwd \
 && printf '%s\n' 'root:x:0:' 'nobody:x:65534:' 'nonroot:x:65532:' >/out/etc/group \
 && cp /etc/os-release /out/etc/os-release

FROM scratch
COPY --from=files /out/ /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
USER 65532:65532
WORKDIR /home/nonroot

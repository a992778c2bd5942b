#!/usr/bin/env bash
# The base images `make images` builds on, made on this machine from Debian's archive and
# the host's Go, for a machine that cannot pull from an image registry. Each is made once
# and kept: a tag that exists is not made again (remove it with `docker rmi` to remake
# it). With a registry, none of this is needed: the Dockerfiles' defaults name the
# public images these stand in for.
#
#   DEBIAN_BASE  a Debian bookworm root filesystem (debootstrap --variant=minbase),
#                imported (docker import); stands in for debian:bookworm-slim
#   GO_BASE      DEBIAN_BASE, CA certificates (Debian's and the host's own) and the host's
#                Go ($(go env GOROOT)) in /usr/local/go (base-golang.Dockerfile); stands
#                in for golang:1.26-bookworm
#   STATIC_BASE  FROM scratch: CA certificates, time zones, /etc/passwd with nonroot
#                (65532), /tmp (base-static.Dockerfile); stands in for
#                gcr.io/distroless/static-debian12:nonroot
#
# Run by `make images` (as root: debootstrap needs it), with DOCKER the command
# engine.sh prints and the three tags set.
set -euo pipefail

: "${DOCKER:?DOCKER: the docker command (deploy/container/engine.sh prints it)}"
: "${DEBIAN_BASE:?}" "${GO_BASE:?}" "${STATIC_BASE:?}"
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
here=$(cd "$(dirname "$0")" && pwd)
export DOCKER_BUILDKIT=1

exists() { "$DOCKER" image inspect "$1" >/dev/null 2>&1; }

if ! exists "$DEBIAN_BASE"; then
	command -v debootstrap >/dev/null || { echo "bases: no debootstrap; apt-get install -y debootstrap" >&2; exit 1; }
	[ "$(id -u)" = 0 ] || { echo "bases: debootstrap needs root to make $DEBIAN_BASE" >&2; exit 1; }
	echo "bases: making $DEBIAN_BASE (debootstrap from $mirror)" >&2
	work=$(mktemp -d /var/tmp/finledger-rootfs.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	root=$work/rootfs
	debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
		{ tail -20 "$work/debootstrap.log" >&2; exit 1; }
	# The sources of the official image: the release, its updates and its security
	# updates, which are applied now, as each rebuild of the official image does.
	rm -f "$root/etc/apt/sources.list"
	cat >"$root/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
	chroot "$root" env DEBIAN_FRONTEND=noninteractive sh -ec 'apt-get update -qq && apt-get upgrade -y -qq' >"$work/upgrade.log" 2>&1 ||
		{ tail -20 "$work/upgrade.log" >&2; exit 1; }
	# No package files or lists in the image, and nothing of this machine's.
	rm -rf "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
		"$root"/var/log/* "$root"/tmp/* "$root"/etc/resolv.conf "$root"/etc/hostname
	tar --numeric-owner -C "$root" -c . |
		"$DOCKER" import --change 'CMD ["bash"]' \
			--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
			- "$DEBIAN_BASE" >/dev/null
	rm -rf "$work"
	trap - EXIT
fi

if ! exists "$GO_BASE"; then
	goroot=$(go env GOROOT)
	echo "bases: making $GO_BASE ($DEBIAN_BASE and $(go env GOVERSION) from $goroot)" >&2
	# The build context, a tar on stdin: the Dockerfile, the CA certificates this machine
	# adds to Debian's (/usr/local/share/ca-certificates: where the way out to the module
	# proxy re-signs TLS, its CA) and GOROOT, as go/ (its own test suite left out).
	ctx=$(mktemp -d)
	trap 'rm -rf "$ctx"' EXIT
	cp "$here/base-golang.Dockerfile" "$ctx/Dockerfile"
	mkdir "$ctx/ca-certificates"
	if [ -d /usr/local/share/ca-certificates ]; then
		cp -R /usr/local/share/ca-certificates/. "$ctx/ca-certificates/"
	fi
	g=$(basename "$goroot")
	tar -c -C "$ctx" Dockerfile ca-certificates \
		-C "$(dirname "$goroot")" --exclude="$g/test" --transform="s,^$g\(/\|\$\),go\1," "$g" |
		"$DOCKER" build -q --network host --build-arg BASE="$DEBIAN_BASE" -t "$GO_BASE" - >/dev/null
	rm -rf "$ctx"
	trap - EXIT
fi

if ! exists "$STATIC_BASE"; then
	echo "bases: making $STATIC_BASE (from $DEBIAN_BASE's packages)" >&2
	"$DOCKER" build -q --network host --build-arg BASE="$DEBIAN_BASE" \
		-f "$here/base-static.Dockerfile" -t "$STATIC_BASE" "$here" >/dev/null
fi

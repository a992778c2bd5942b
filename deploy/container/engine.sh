#!/usr/bin/env bash
# The container engine `make images` builds with: checks that a Docker daemon answers,
# installs Debian's engine (docker.io) where there is none and it may (root, apt),
# starts dockerd itself where none runs and it may (root; by systemd where it runs),
# and prints on stdout the docker command to build with, one that
# builds with BuildKit (the Dockerfiles' per-file .dockerignore needs it): `docker` where
# the buildx plugin is installed or the client predates it (Docker 20.10, Debian
# bookworm's docker.io), else Debian's /usr/bin/docker. Everything else goes to stderr.
# Every wait is bounded; on failure it says what to run.
#
#   deploy/container/engine.sh            # check, start if needed, print the command
#   ENGINE_WAIT=60 deploy/container/engine.sh
set -euo pipefail

wait_s=${ENGINE_WAIT:-30}
log=${DOCKERD_LOG:-/var/log/dockerd.log}

fail() {
	printf 'engine: %s\n' "$@" >&2
	exit 1
}

# No engine: as root on Debian, install Debian's (bases.sh needs debootstrap too).
if ! command -v dockerd >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "engine: installing docker.io and debootstrap (apt-get; log: /var/log/finledger-engine-apt.log)" >&2
	{ timeout 120 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 600 \
		apt-get install -y -qq docker.io debootstrap; } >/var/log/finledger-engine-apt.log 2>&1 ||
		fail "apt-get could not install docker.io (see /var/log/finledger-engine-apt.log); run:" \
			"  apt-get install -y docker.io debootstrap"
fi
command -v docker >/dev/null ||
	fail "no docker command. Install Debian's engine:" \
		"  apt-get install -y docker.io debootstrap"

# A client that builds with BuildKit without buildx: its major version is below 23.
buildkit_client() {
	local v
	"$1" buildx version >/dev/null 2>&1 && return 0
	v=$("$1" version --format '{{.Client.Version}}' 2>/dev/null) || v=$("$1" --version 2>/dev/null | sed -n 's/^Docker version \([0-9]*\).*/\1/p')
	[ -n "$v" ] && [ "${v%%.*}" -lt 23 ] 2>/dev/null
}

docker=
for c in docker /usr/bin/docker; do
	if command -v "$c" >/dev/null && buildkit_client "$(command -v "$c")"; then
		docker=$(command -v "$c")
		break
	fi
done
[ -n "$docker" ] ||
	fail "$(command -v docker) has no buildx plugin and builds only with the legacy builder." \
		"Install the plugin (docker-buildx-plugin from Docker's repository, docker-buildx on" \
		"Debian trixie), or Debian bookworm's engine, whose client has BuildKit built in:" \
		"  apt-get install -y docker.io"

answers() { timeout 10 "$docker" info >/dev/null 2>&1; }

if ! answers; then
	if [ "$(id -u)" != 0 ] || ! command -v dockerd >/dev/null; then
		fail "the Docker daemon does not answer ($docker info). Start it:" \
			"  systemctl start docker      # where systemd runs" \
			"  dockerd >/var/log/dockerd.log 2>&1 &   # as root, without systemd"
	fi
	if [ -d /run/systemd/system ] && timeout 30 systemctl start docker >/dev/null 2>&1 && answers; then
		echo "engine: started docker.service" >&2
	else
		echo "engine: starting dockerd (log: $log)" >&2
		nohup dockerd >>"$log" 2>&1 </dev/null &
		for ((i = 0; i < wait_s; i++)); do
			answers && break
			kill -0 $! 2>/dev/null || fail "dockerd exited; its log, $log, says why:" "$(tail -5 "$log")"
			sleep 1
		done
		answers || fail "dockerd did not answer within ${wait_s}s; see $log," \
			"or start it yourself: dockerd >/var/log/dockerd.log 2>&1 &"
	fi
fi
echo "$docker"

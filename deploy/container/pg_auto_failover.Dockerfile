# The database image of compose.yaml: PostgreSQL 15 and pg_auto_failover (pg_autoctl)
# from Debian's packages, the ones the failover drill runs (docs/database.md). The same
# image runs the monitor and both nodes; compose.yaml gives each its pg_autoctl command.
# Build from deploy/:
#   docker build -f container/pg_auto_failover.Dockerfile -t finledger-postgres .
# deploy/check (go test) parses this file with BuildKit's parser and checks it.
# BASE's default is the public image; `make images` gives the Debian base it makes where
# no registry answers (bases.sh), and builds with --network host for apt.

ARG BASE=debian:bookworm-slim
FROM ${BASE}
# postgresql-15-auto-failover brings the pgautofailover extension (the monitor's), and
# with pg-auto-failover-cli the pg_autoctl keeper; both pull in postgresql-15.
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 postgresql-15-auto-failover pg-auto-failover-cli \
 && rm -rf /var/lib/apt/lists/*
# The package's own cluster is not used: pg_autoctl makes its own in PGDATA.
RUN rm -rf /var/lib/postgresql/15 /etc/postgresql/15 \
 && install -d -o postgres -g postgres -m 0700 /var/lib/postgresql \
 && install -d -o postgres -g postgres -m 2775 /var/run/postgresql
# pg_autoctl keeps its configuration and state under HOME (~/.config/pg_autoctl and
# ~/.local/share/pg_autoctl), so the volume compose mounts on /var/lib/postgresql keeps
# them with the data.
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    HOME=/var/lib/postgresql \
    PGDATA=/var/lib/postgresql/pgdata
USER postgres
WORKDIR /var/lib/postgresql
EXPOSE 5432
# No HEALTHCHECK here: the monitor and the nodes are healthy on different terms
# (compose.yaml says which).
CMD ["pg_autoctl", "run"]

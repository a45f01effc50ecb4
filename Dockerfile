# browserd's container image: Debian's Chromium and browserd, run as the
# user browserd, serving the API and MCP on 0.0.0.0:8765 with its data —
# admin's token (/data/token), the secret key, the SQLite store, profiles —
# in the volume /data.
#
# No Go image is needed: the binary is built on the host first (pure Go,
# SQLite included). `make image` (as root) builds it, then the image with
# podman; with docker, where a registry is reachable:
#
#   CGO_ENABLED=0 go build -trimpath -o bin/image/browserd ./cmd/browserd
#   docker build --build-arg BASE=debian:bookworm-slim -t browserd .
#   docker run -d --name browserd -p 127.0.0.1:8765:8765 -v browserd:/data browserd
#   docker exec browserd cat /data/token      # admin's bearer token
#
# BASE is any Debian bookworm: debian:bookworm-slim where a registry is
# reachable; the default is the one `make image` (scripts/image-test.sh)
# makes with debootstrap and `podman import`s, for machines that reach a
# Debian mirror but no registry.
ARG BASE=localhost/debian:bookworm-minbase
FROM ${BASE}

# tini is PID 1: it reaps what Chromium's helpers leave behind (browserd
# waits only for its own children) and passes SIGTERM on, so that browserd
# captures its sessions and stops Chromium before the container goes.
# tzdata: the `timezone` of a launch is checked against it. The upgrade
# brings a base older than the security archive up to date.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get upgrade -y \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      chromium ca-certificates tini tzdata \
      fonts-liberation fonts-dejavu-core fonts-noto-color-emoji \
 && rm -rf /var/lib/apt/lists/* \
 && rm -f /etc/chromium.d/apikeys

# Debian's chromium.d/apikeys (removed above) would give Chromium the
# Google API keys that browserd sets to "no" so that it calls no Google
# service; image/chromium-sandbox decides on Chromium's sandbox.
COPY image/chromium-sandbox /etc/chromium.d/browserd-sandbox

# A fixed uid, so that a host folder given as /data can be chowned to it.
# /keys is where compose.yaml's nodes share their secret key.
RUN useradd --uid 10001 --user-group --create-home --home-dir /home/browserd \
      --shell /usr/sbin/nologin browserd \
 && mkdir -p /data /keys \
 && chown browserd:browserd /data /keys \
 && chmod 700 /data /keys

# Settings as environment rather than flags of the entrypoint, so that
# `docker exec … browserd token create`, `browserd health` and the like
# find the same daemon, and `-e BROWSERD_…` changes any of them.
ENV BROWSERD_DATA=/data \
    BROWSERD_LISTEN=0.0.0.0:8765
USER browserd
WORKDIR /data
VOLUME /data
EXPOSE 8765
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["browserd", "health"]
ENTRYPOINT ["tini", "--", "browserd", "serve"]

# Last, so that a build with a new binary reuses every layer above.
COPY bin/image/browserd /usr/local/bin/browserd

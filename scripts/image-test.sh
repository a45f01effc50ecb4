#!/usr/bin/env bash
# Builds browserd's container image (./Dockerfile) and smoke-tests it, on a
# machine that reaches a Debian mirror but no container registry, and where
# no container can be started:
#
#   scripts/image-test.sh build   # make image: the base, the binary, the image
#   scripts/image-test.sh         # make image-test: build it, then test it
#
# Needs root (debootstrap, podman image mount, chroot and namespaces do);
# installs what it lacks with apt-get. Settings, from the environment:
#   IMAGE           the image to build and test (default browserd, which
#                   podman stores as localhost/browserd:latest)
#   BASE_IMAGE      the base it is built on (default the Dockerfile's,
#                   localhost/debian:bookworm-minbase)
#   CACHE_DIR       where the debootstrapped base is kept between runs
#                   (default ~/.cache/browserd-image)
#   REBUILD_BASE=1  debootstrap the base again, whatever is cached
#   DEBIAN_MIRROR, DEBIAN_SECURITY_MIRROR  the mirrors (default: those this
#                   machine's apt uses, else deb.debian.org)
#
# How, and why so:
#  - The base: no registry, so no debian:bookworm-slim; `debootstrap
#    --variant=minbase bookworm` from the mirror apt uses here (minutes:
#    on a small shared machine the first `make image-test` took about 13),
#    slimmed as debian:bookworm-slim is (no docs, man pages or locales,
#    apt's caches cleaned), kept as a tarball in CACHE_DIR and `podman
#    import`ed under BASE_IMAGE. A second run finds the image, or at least
#    the tarball, and skips all that.
#  - The image: `podman build --isolation=chroot --pull=never` (no runtime
#    needed; apt inside the build reaches the mirror), in docker format,
#    since the OCI format has no HEALTHCHECK.
#  - The test: `podman run` cannot start containers on such a machine
#    (setting rlimits is not permitted), so the image is run as a runtime
#    would run it, by hand: its file system (`podman image mount`,
#    read-only) under chroot as its USER, with its ENTRYPOINT, ENV and
#    WORKDIR, in mount and network namespaces of its own — so that it
#    listens on its own 0.0.0.0:8765, whatever this machine runs, and every
#    mount goes when it does — with /proc, /dev, a fresh /dev/shm, /tmp and
#    home, and an empty /data. Then:
#      1. the HEALTHCHECK command, run inside the chroot, must pass;
#      2. admin's token is read from the volume (/data/token), and one
#         that `browserd token create`, run in the container as `docker
#         exec` runs it, makes is taken by the API;
#      3. MCP over streamable HTTP (curl): initialize, tools/list, and a
#         browser call that navigates to a page this script serves on
#         127.0.0.1 (allowed with BROWSERD_ALLOW_HOSTS, as the guard
#         refuses loopback otherwise): the snapshot must hold its text;
#      4. Chromium runs sandboxed when user namespaces work here, and with
#         --no-sandbox only when they do not (image/chromium-sandbox);
#      5. SIGTERM to PID 1 (tini), as `docker stop` sends: browserd stops
#         cleanly and no process is left in the image;
#      6. compose.yaml: Debian's docker-compose checks it against the
#         Compose schema with its variables filled in (POSTGRES_PASSWORD
#         required); each node runs this image with its own name, URL and
#         /data, the shared store and key, settings browserd has, and the
#         image's health check; and the secret-key service's command, run
#         in the image as its user, makes one key and keeps it.
# Not tested here: the image under a real container runtime (none runs on
# such a machine: named volumes, DNS between services, the published
# ports), and compose.yaml's services running together — TestCluster in
# `make test` runs three nodes of the same binary on one PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-test}
case "$mode" in
build | test) ;;
*) echo "usage: $0 [build|test]" >&2; exit 2 ;;
esac

IMAGE=${IMAGE:-browserd}
BASE_IMAGE=${BASE_IMAGE:-localhost/debian:bookworm-minbase}
CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/browserd-image}
GO=${GO:-$(command -v go 2>/dev/null || echo /usr/local/go/bin/go)}
start=$SECONDS

say() { echo "image-test: $*" >&2; }
die() { echo "image-test: FAIL: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root: debootstrap, podman image mount, chroot and namespaces need it (sudo make image-test)"

# What cleanup undoes; set as each thing is made.
base_root="" work="" mnt="" daemon_pid="" page_pid=""

# in_image lists the processes whose root is the image's file system: ours
# only (the chroot this script starts), whatever their name.
in_image() {
  local p
  [ -n "$mnt" ] || return 0
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$mnt" ] && echo "${p#/proc/}"
  done
  return 0
}

cleanup() {
  set +e
  [ -n "$page_pid" ] && kill "$page_pid" 2>/dev/null
  [ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null
  local p
  for p in $(in_image); do kill -KILL "$p" 2>/dev/null; done
  [ -n "$mnt" ] && { sleep 0.2; podman image unmount "$IMAGE" >/dev/null; }
  [ -n "$work" ] && rm -rf --one-file-system "$work"
  if [ -n "$base_root" ]; then
    # debootstrap unmounts what it mounted, but a killed one may not have.
    umount -R "$base_root/proc" "$base_root/sys" 2>/dev/null
    rm -rf --one-file-system "$base_root" "$base_root.log"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- tools ---------------------------------------------------------------

need=(debootstrap:debootstrap podman:podman)
if [ "$mode" = test ]; then
  # docker-compose: Debian's (1.29, Python), which reads and checks a
  # compose file with no engine; it brings /usr/bin/python3 with yaml.
  need+=(curl:curl jq:jq python3:python3 ip:iproute2 unshare:util-linux nsenter:util-linux docker-compose:docker-compose)
fi
missing=()
for pair in "${need[@]}"; do
  cmd=${pair%%:*} pkg=${pair#*:}
  if ! command -v "$cmd" >/dev/null 2>&1 && [[ " ${missing[*]} " != *" $pkg "* ]]; then
    missing+=("$pkg")
  fi
done
# The compose check reads docker-compose's answer (YAML) with Debian's
# Python, whatever python3 comes first on PATH.
if [ "$mode" = test ] && ! /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
  missing+=(python3-yaml)
fi
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 || die "missing ${missing[*]}: install them (on Debian this script does it with apt-get)"
  say "installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || die "apt-get update failed: does this machine reach its Debian mirror?"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || die "apt-get install ${missing[*]} failed (above)"
fi
[ -x "$GO" ] || command -v "$GO" >/dev/null 2>&1 || die "no Go at $GO: install Go 1.26 or give GO=/path/to/go"

# --- the base ------------------------------------------------------------

# mirror prints the first URI apt uses here for suite (deb822 .sources or
# one-line .list files), else default.
mirror() {
  local suite=$1 default=$2 f uri
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    case "$f" in
    *.sources)
      uri=$(awk -v s="$suite" 'BEGIN { RS = ""; FS = "\n" } {
          uri = ""; has = 0; off = 0; deb = 0
          for (i = 1; i <= NF; i++) {
            n = split($i, w, /[ \t]+/)
            if (w[1] == "URIs:") uri = w[2]
            if (w[1] == "Enabled:" && w[2] == "no") off = 1
            if (w[1] == "Types:") { deb = 0; for (j = 2; j <= n; j++) if (w[j] == "deb") deb = 1 }
            if (w[1] == "Suites:") for (j = 2; j <= n; j++) if (w[j] == s) has = 1
          }
          if (has && deb && !off && uri != "") { print uri; exit }
        }' "$f") ;;
    *)
      # deb [options] URI SUITE COMPONENT…
      uri=$(sed -E 's/\[[^]]*\]//' "$f" | awk -v s="$suite" '$1 == "deb" && $3 == s { print $2; exit }') ;;
    esac
    if [ -n "$uri" ]; then echo "$uri"; return; fi
  done
  echo "$default"
}

# make_base debootstraps bookworm into a temporary folder, slims it as
# debian:bookworm-slim is slimmed, and writes it as a tarball to $1.
make_base() {
  local out=$1 main security
  main=${DEBIAN_MIRROR:-$(mirror bookworm http://deb.debian.org/debian)}
  security=${DEBIAN_SECURITY_MIRROR:-$(mirror bookworm-security http://deb.debian.org/debian-security)}
  base_root=$(mktemp -d "${TMPDIR:-/tmp}/browserd-base.XXXXXX")
  say "debootstrap --variant=minbase bookworm from $main (takes minutes; only the first run)"
  if ! debootstrap --variant=minbase bookworm "$base_root" "$main" >"$base_root.log" 2>&1; then
    tail -n 15 "$base_root.log" >&2
    die "debootstrap failed (its log above): check that this machine reaches $main, or give another with DEBIAN_MIRROR"
  fi
  # The suites apt reads in the image: chromium's updates come through
  # bookworm-security. deb822, as in debian:bookworm-slim.
  rm -f "$base_root/etc/apt/sources.list"
  cat >"$base_root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $main
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  # What debian:bookworm-slim leaves out (debuerreotype's slimify): docs,
  # man pages and translations, now and in every package installed later.
  cat >"$base_root/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
  cat >"$base_root/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
  echo 'Acquire::Languages "none";' >"$base_root/etc/apt/apt.conf.d/docker-no-languages"
  (
    cd "$base_root"
    find usr/share/doc -mindepth 1 -not -name copyright -not -type d -delete
    find usr/share/doc -mindepth 1 -type d -empty -delete
    rm -rf usr/share/man/* usr/share/groff/* usr/share/info/* usr/share/lintian/* usr/share/linda/*
    find usr/share/locale -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
    rm -rf var/cache/apt/archives/*.deb var/cache/apt/*.bin var/lib/apt/lists/* var/log/* dev/* run/* tmp/*
  )
  mkdir -p "$CACHE_DIR"
  tar --numeric-owner -C "$base_root" -cf "$out.tmp" . && mv "$out.tmp" "$out"
  rm -rf --one-file-system "$base_root" "$base_root.log"
  base_root=""
}

if [ -n "${REBUILD_BASE:-}" ] || ! podman image exists "$BASE_IMAGE"; then
  tarball=$CACHE_DIR/debian-bookworm-minbase.tar
  if [ -n "${REBUILD_BASE:-}" ] || [ ! -s "$tarball" ]; then
    make_base "$tarball"
  else
    say "base from the cached $tarball (REBUILD_BASE=1 makes it again)"
  fi
  # An imported tarball has no PATH; runtimes and tini need one.
  podman import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' "$tarball" "$BASE_IMAGE" >/dev/null || die "podman import of $tarball failed (above)"
  say "imported the base as $BASE_IMAGE"
else
  say "base $BASE_IMAGE is there (REBUILD_BASE=1 makes it again)"
fi

# --- the image -----------------------------------------------------------

say "building bin/image/browserd (CGO_ENABLED=0: nothing of the image's C library is needed)"
CGO_ENABLED=0 "$GO" build -trimpath -o bin/image/browserd ./cmd/browserd || die "go build failed (above)"
say "podman build → $IMAGE"
old_id=$(podman image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)
podman build --isolation=chroot --pull=never --format docker --build-arg BASE="$BASE_IMAGE" \
  -t "$IMAGE" -f Dockerfile . >&2 || die "podman build failed (above)"
# The image this build replaced, left without a name: removed, so that runs
# do not pile up a binary each (not when something still uses it).
if [ -n "$old_id" ] && [ "$old_id" != "$(podman image inspect --format '{{.Id}}' "$IMAGE")" ]; then
  podman rmi "$old_id" >/dev/null 2>&1 || true
fi
say "built $IMAGE: $(podman image inspect "$IMAGE" --format '{{.Size}}' | awk '{ printf "%d MiB", $1 / 1048576 }')"
if [ "$mode" = build ]; then
  say "done in $((SECONDS - start)) s"
  exit 0
fi

# --- the smoke test ------------------------------------------------------

work=$(mktemp -d "${TMPDIR:-/tmp}/browserd-image-test.XXXXXX")
mnt=$(podman image mount "$IMAGE") || die "podman image mount $IMAGE failed (above)"
inspect=$(podman image inspect "$IMAGE" | jq '.[0]')
cfg=$(jq '.Config' <<<"$inspect")

user=$(jq -r '.User // ""' <<<"$cfg")
case "$user" in "" | root | 0 | 0:*) die "the image runs as '${user:-root}': want a USER that is not root" ;; esac
read -r uid gid home < <(awk -F: -v u="$user" '$1 == u { print $3, $4, $6 }' "$mnt/etc/passwd")
[ -n "${uid:-}" ] || die "the image's USER $user is not in its /etc/passwd"
mapfile -t run < <(jq -r '(.Entrypoint // []) + (.Cmd // []) | .[]' <<<"$cfg")
mapfile -t env < <(jq -r '.Env // [] | .[]' <<<"$cfg")
workdir=$(jq -r '.WorkingDir // "/"' <<<"$cfg")
# podman keeps a docker-format image's HEALTHCHECK beside its config.
mapfile -t health < <(jq -r '(.Config.Healthcheck // .Healthcheck // .HealthCheck).Test // [] | .[]' <<<"$inspect")
[ "${health[0]:-}" = CMD ] || die "the image has no HEALTHCHECK CMD (got '${health[*]}'): was it built in docker format?"
health=("${health[@]:1}")
listen=$(printf '%s\n' "${env[@]}" | sed -n 's/^BROWSERD_LISTEN=//p')
port=${listen##*:}
[ -n "$port" ] || die "the image sets no BROWSERD_LISTEN"
data_vol=$(jq -r '.Volumes // {} | keys[0] // ""' <<<"$cfg")
[ "$data_vol" = /data ] || die "the image's volume is '$data_vol', want /data"
say "image: USER $user ($uid:$gid), ENTRYPOINT ${run[*]}, WORKDIR $workdir, listen $listen, HEALTHCHECK ${health[*]}"

mkdir -p "$work/data" "$work/page"
chown "$uid:$gid" "$work/data"
chmod 700 "$work/data"
marker="browserd image smoke test $RANDOM$RANDOM"
cat >"$work/page/index.html" <<EOF
<!doctype html><title>Image test</title><main><h1>$marker</h1><button>Go</button></main>
EOF
page_port=8000

# The container: new mount and network namespaces, the image's file system
# with what a runtime mounts, then chroot as the image's user into its
# entrypoint with its environment (and the allow-host for our page).
# shellcheck disable=SC2016
unshare --mount --net --propagation private -- bash -c '
  set -e
  mnt=$1 data=$2 home=$3 uid=$4 gid=$5; shift 5
  ip link set lo up
  mount -t proc proc "$mnt/proc"
  mount --rbind /dev "$mnt/dev"
  mount -t tmpfs -o mode=1777,size=64m shm "$mnt/dev/shm"
  mount -t tmpfs -o mode=1777 tmp "$mnt/tmp"
  mount -t tmpfs -o "mode=700,uid=$uid,gid=$gid" home "$mnt$home"
  mount --bind "$data" "$mnt/data"
  exec chroot --userspec="$uid:$gid" "$mnt" "$@"
' _ "$mnt" "$work/data" "$home" "$uid" "$gid" \
  /usr/bin/env -i -C "$workdir" "${env[@]}" HOME="$home" BROWSERD_ALLOW_HOSTS="127.0.0.1:$page_port" "${run[@]}" \
  >"$work/daemon.log" 2>&1 &
daemon_pid=$!

# in_container runs a command in the container (its namespaces, chroot, user
# and environment), as `docker exec` and the HEALTHCHECK do.
in_container() {
  nsenter --target "$daemon_pid" --mount --net -- \
    chroot --userspec="$uid:$gid" "$mnt" /usr/bin/env -i -C "$workdir" "${env[@]}" HOME="$home" "$@"
}
show_log() { echo "--- the container's output:" >&2; tail -n 40 "$work/daemon.log" >&2; }

say "1. waiting for the HEALTHCHECK (${health[*]}) to pass inside the chroot"
for i in $(seq 1 60); do
  if ! kill -0 "$daemon_pid" 2>/dev/null; then
    show_log
    die "the container exited before it was healthy (its output above)"
  fi
  if out=$(in_container "${health[@]}" 2>&1); then
    say "   healthy after ${i}×0.5 s: $out"
    break
  fi
  [ "$i" -lt 60 ] || { show_log; die "the HEALTHCHECK still fails after 30 s: $out"; }
  sleep 0.5
done

token=$(cat "$work/data/token" 2>/dev/null) || die "no admin token in the volume (/data/token)"
[[ "$token" == bd_* ]] || die "/data/token holds no browserd token"
say "2. admin's token is in the volume: /data/token (owner $(stat -c '%u, mode %a' "$work/data/token"))"
# As `docker exec <container> browserd token create` runs: the image's
# environment leads the CLI to the daemon's socket in /data.
alice=$(in_container browserd token create --owner alice 2>"$work/token.err") ||
  die "browserd token create in the container failed: $(cat "$work/token.err")"
code=$(nsenter --target "$daemon_pid" --net -- curl -s -o /dev/null -w '%{http_code}' \
  -H "Authorization: Bearer $alice" "http://127.0.0.1:$port/api/sessions")
[ "$code" = 200 ] || die "GET /api/sessions with the token exec made: HTTP $code, want 200"
say "   browserd token create --owner alice, run in the container, made a token the API takes"

nsenter --target "$daemon_pid" --net -- python3 -m http.server "$page_port" --bind 127.0.0.1 \
  --directory "$work/page" >"$work/page.log" 2>&1 &
page_pid=$!

# mcp POSTs one JSON-RPC message to /mcp, from inside the container's
# network, and prints the JSON-RPC answer: the data line of the event
# stream, or the body when it is plain JSON.
mcp() {
  local body
  body=$(nsenter --target "$daemon_pid" --net -- curl -sS --max-time 90 \
    -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-06-18' \
    --data-binary "$1" "http://127.0.0.1:$port/mcp") || die "POST /mcp failed: $1"
  if grep -q '^data: ' <<<"$body"; then
    sed -n 's/^data: //p' <<<"$body" | tail -n 1
  else
    printf '%s\n' "$body"
  fi
}

say "3. MCP over streamable HTTP"
init=$(mcp '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"image-test","version":"1"}}}')
jq -e '.result.serverInfo.name and .result.protocolVersion' <<<"$init" >/dev/null || die "initialize: $init"
say "   initialize: $(jq -c '{server: .result.serverInfo, protocol: .result.protocolVersion}' <<<"$init")"
tools=$(mcp '{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
jq -e '[.result.tools[].name] | index("browser")' <<<"$tools" >/dev/null || die "tools/list has no browser tool: $tools"
say "   tools/list: $(jq -c '[.result.tools[].name]' <<<"$tools")"
for i in $(seq 1 20); do # the page server starts in the background
  nsenter --target "$daemon_pid" --net -- curl -sf -o /dev/null "http://127.0.0.1:$page_port/" && break
  sleep 0.25
done
url="http://127.0.0.1:$page_port/"
nav=$(mcp "$(jq -nc --arg url "$url" '{jsonrpc: "2.0", id: 3, method: "tools/call", params: {name: "browser", arguments: {action: "navigate", url: $url}}}')")
text=$(jq -r '[.result.content[]? | select(.type == "text") | .text] | join("\n")' <<<"$nav")
if jq -e '.result.isError == true or .error' <<<"$nav" >/dev/null || [[ "$text" != *"$marker"* ]]; then
  show_log
  die "browser navigate to $url: the snapshot lacks \"$marker\": $nav"
fi
say "   browser navigate $url: the snapshot has the page's text:"
grep -m 3 -e "$marker" -e 'button' <<<"$text" | sed 's/^/       /' >&2

say "4. Chromium's sandbox"
# args prints a process's arguments one a line. Chromium rewrites its
# command line as one string (its process title), hence the spaces.
args() { tr ' \0' '\n' <"/proc/$1/cmdline"; }
browser_pid=""
for p in $(in_image); do
  if [[ "$(readlink "/proc/$p/exe" 2>/dev/null)" == */chromium ]] && ! args "$p" | grep -q '^--type='; then
    browser_pid=$p
  fi
done
[ -n "$browser_pid" ] || { show_log; die "no Chromium browser process runs in the image"; }
# A chroot may make no user namespace (the kernel refuses it), so here the
# answer is no and the test is of the fallback; under a runtime that allows
# them, it is yes and Chromium keeps its sandbox.
if in_container unshare --user --pid --net --fork true 2>/dev/null; then
  args "$browser_pid" | grep -qx -- --no-sandbox &&
    die "Chromium runs with --no-sandbox though user namespaces work here"
  say "   user namespaces work here: Chromium (pid $browser_pid) runs sandboxed"
else
  args "$browser_pid" | grep -qx -- --no-sandbox ||
    die "user namespaces do not work here, yet Chromium was not given --no-sandbox"
  say "   no user namespace can be made here (a chroot): Chromium (pid $browser_pid) runs with --no-sandbox"
fi

say "5. SIGTERM to PID 1 (tini), as docker stop sends"
kill -TERM "$daemon_pid"
for i in $(seq 1 100); do
  kill -0 "$daemon_pid" 2>/dev/null || break
  [ "$i" -lt 100 ] || { show_log; die "the container is still running 20 s after SIGTERM"; }
  sleep 0.2
done
status=0
wait "$daemon_pid" || status=$?
daemon_pid=""
grep -q '"browserd stopped"' "$work/daemon.log" || { show_log; die "browserd did not log that it stopped (exit $status)"; }
[ "$status" -eq 0 ] || { show_log; die "the container exited with $status after SIGTERM, want 0"; }
sleep 0.5
left=$(in_image)
if [ -n "$left" ]; then
  ps -o pid,user,args -p "$(tr '\n' , <<<"$left" | sed 's/,$//')" >&2 || true
  die "processes left in the image after the container stopped: $left"
fi
say "   stopped cleanly (exit 0); no process left in the image"

say "6. compose.yaml"
# Debian's docker-compose checks the file against the Compose schema and
# fills in its variables, with no engine.
if ! yaml=$(BROWSERD_IMAGE=$IMAGE POSTGRES_PASSWORD=image-test docker-compose -f compose.yaml config 2>&1); then
  echo "$yaml" >&2
  die "docker-compose finds compose.yaml invalid (above)"
fi
if (unset POSTGRES_PASSWORD; docker-compose -f compose.yaml config) >/dev/null 2>&1; then
  die "compose.yaml is read without POSTGRES_PASSWORD: it must require one"
fi
compose=$(/usr/bin/python3 -c 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)' <<<"$yaml")
jq -e '.services | keys == ["node1", "node2", "node3", "postgres", "secret-key"]' <<<"$compose" >/dev/null ||
  die "compose.yaml's services are $(jq -c '.services | keys' <<<"$compose"), want postgres, secret-key, node1, node2, node3"
settings=$(bin/image/browserd --help)
for n in node1 node2 node3; do
  svc=$(jq -c --arg n "$n" '.services[$n]' <<<"$compose")
  [ "$(jq -r .image <<<"$svc")" = "$IMAGE" ] || die "$n runs $(jq -r .image <<<"$svc"), not \$BROWSERD_IMAGE (the image built here, $IMAGE)"
  for v in $(jq -r '.environment | keys[] | select(startswith("BROWSERD_"))' <<<"$svc"); do
    grep -q "\$$v\b" <<<"$settings" || die "$n sets $v, which is no setting of browserd (browserd --help)"
  done
  jq -e --arg n "$n" '.environment.BROWSERD_NODE_ID == $n and .environment.BROWSERD_ADVERTISE_URL == "http://\($n):8765"
      and (.environment.BROWSERD_DB | startswith("postgres://")) and .environment.PGPASSWORD == "image-test"
      and (.volumes | index($n + ":/data:rw")) and .depends_on.postgres.condition == "service_healthy"
      and .depends_on["secret-key"].condition == "service_completed_successfully"
      and .healthcheck.test == ["CMD", "browserd", "health"]' <<<"$svc" >/dev/null ||
    die "$n is not configured as a node of the cluster: $svc"
  key=$(jq -r '.environment.BROWSERD_SECRET_KEY_FILE' <<<"$svc")
  jq -e --arg d "$(dirname "$key")" '.volumes | index("keys:" + $d + ":ro")' <<<"$svc" >/dev/null ||
    die "$n reads its key from $key, not from the volume keys"
done
say "   docker-compose reads it; POSTGRES_PASSWORD is required; node1-3 share the store and the key, each with its name, URL and /data"
# The secret-key service's entrypoint, run in the image as its user on an
# empty keys volume, twice: one 32-byte key, made once, readable by the
# nodes' user only.
[ "$(jq -r '.services["secret-key"].image' <<<"$compose")" = "$IMAGE" ] || die "the secret-key service does not run \$BROWSERD_IMAGE"
mapfile -t keygen < <(jq -r '.services["secret-key"].entrypoint[]' <<<"$compose")
keys_dir=$(jq -r '.services["secret-key"].volumes[] | select(startswith("keys:")) | split(":")[1]' <<<"$compose")
mkdir -p "$work/keys"
chown "$uid:$gid" "$work/keys"
chmod 700 "$work/keys"
for i in 1 2; do
  # shellcheck disable=SC2016
  unshare --mount --propagation private -- bash -c '
    mnt=$1 keys=$2 dir=$3 uid=$4 gid=$5; shift 5
    mount --rbind /dev "$mnt/dev"
    mount --bind "$keys" "$mnt$dir"
    exec chroot --userspec="$uid:$gid" "$mnt" "$@"
  ' _ "$mnt" "$work/keys" "$keys_dir" "$uid" "$gid" /usr/bin/env -i "${env[@]}" HOME="$home" "${keygen[@]}" ||
    die "the secret-key service's entrypoint failed in the image (run $i)"
  sum=$(sha256sum "$work/keys/secret.key" | cut -c1-16)
  [ "$i" = 1 ] && first=$sum
done
[ "$(stat -c '%s %u %a' "$work/keys/secret.key")" = "32 $uid 600" ] ||
  die "the secret-key service made $(stat -c '%s bytes, owner %u, mode %a' "$work/keys/secret.key"); want 32 bytes, owner $uid, mode 600"
[ "$sum" = "$first" ] || die "the secret-key service made a new key on its second run"
say "   secret-key made $keys_dir/secret.key in the image (32 bytes, mode 600, owner $user) and kept it on a second run"

say "PASS in $((SECONDS - start)) s"

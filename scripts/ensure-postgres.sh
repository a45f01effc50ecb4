#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the tests, and stops it again.
#
#   scripts/ensure-postgres.sh start DIR   # prints the cluster's URL on stdout
#   scripts/ensure-postgres.sh stop DIR    # stops it and removes DIR
#
# The cluster lives in DIR (made if missing; give an empty one, e.g. from
# mktemp -d), listens on 127.0.0.1 on a free port and on a Unix socket in
# DIR, and has one password-protected superuser, browserd, and a database
# browserd_test: the URL is
# postgres://browserd:PASSWORD@127.0.0.1:PORT/browserd_test?sslmode=disable.
# Debian's postgresql package is installed with apt-get when no initdb is
# found. initdb refuses to run as root: as root, the cluster runs as the
# postgres user (made if missing), which then owns DIR.
set -euo pipefail

die() { echo "ensure-postgres: $*" >&2; exit 1; }

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: $0 start DIR | stop DIR"

# bindir finds the newest PostgreSQL's binaries.
bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"; return 0
  fi
  return 1
}

# as runs a command as the cluster's user: the postgres user when we are
# root, ourselves otherwise. As postgres it runs from /: the folder we are
# in (a clone under a private temporary folder) may be closed to that user,
# and PostgreSQL's tools would say so on every run.
as() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

case "$cmd" in
stop)
  [ -d "$dir" ] || exit 0
  if [ -f "$dir/data/postmaster.pid" ]; then
    bin=$(bindir) || die "no pg_ctl found to stop the cluster in $dir"
    as "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
  exit 0
  ;;
start) ;;
*) die "unknown command $cmd; want start or stop" ;;
esac

if ! bin=$(bindir); then
  echo "ensure-postgres: PostgreSQL not found; installing Debian's postgresql package" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "run as root or install PostgreSQL yourself (apt-get install postgresql)"
    SUDO=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >&2
  # Only the binaries are wanted, not the package's own main cluster (as
  # the postgres Docker image does it).
  $SUDO apt-get install -y -qq postgresql-common >&2
  $SUDO sed -ri 's/#?(create_main_cluster) .*$/\1 = false/' /etc/postgresql-common/createcluster.conf
  $SUDO apt-get install -y -qq postgresql >&2
  bin=$(bindir) || die "installed postgresql, but found no initdb in /usr/lib/postgresql/*/bin"
fi

if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin postgres
fi

mkdir -p "$dir"
[ -z "$(ls -A "$dir")" ] || die "$dir is not empty; give an empty folder (e.g. from mktemp -d)"
chmod 700 "$dir"
if [ "$(id -u)" -eq 0 ]; then
  chown postgres: "$dir"
  # The cluster's user must be able to reach DIR through its parents.
  as test -x "$dir" || die "the postgres user cannot reach $dir: use a folder under /tmp"
fi

password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$password" | as sh -c "umask 077; cat > '$dir/pwfile'"
as "$bin/initdb" -D "$dir/data" -U browserd --pwfile="$dir/pwfile" \
  --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
  as "$bin/initdb" -D "$dir/data" -U browserd --pwfile="$dir/pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log" >&2; die "initdb failed (log above)"; }
rm -f "$dir/pwfile"

# A free port: try a few at random; the server says when it cannot bind.
started=""
for _ in 1 2 3 4 5 6 7 8; do
  port=$((20000 + RANDOM % 40000))
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
  if as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories='$dir' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null 2>&1; then
    started=1
    break
  fi
done
[ -n "$started" ] || { cat "$dir/server.log" >&2 || true; die "could not start PostgreSQL (server log above)"; }

as "$bin/psql" -h "$dir" -p "$port" -U browserd -d postgres -qAt -v ON_ERROR_STOP=1 \
  -c "CREATE DATABASE browserd_test" >/dev/null ||
  die "could not create the database browserd_test"

echo "postgres://browserd:$password@127.0.0.1:$port/browserd_test?sslmode=disable"

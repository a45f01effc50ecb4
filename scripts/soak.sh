#!/usr/bin/env bash
# make soak: the whole suite (`.ci/run`, as CI runs it) on a fresh clone of
# HEAD, SOAK times in a row (5 by default), with the machine kept busy
# beside it by LOAD CPU-bound processes of its own (2 by default) for the
# whole of each run. Prints a line per run and, at the end, the table for
# docs/testing.md: commit, load, time, failures. Each run's output is kept
# in $SOAK_DIR (default /tmp/browserd-soak) as run-N.log.
#
# Soak runs the drills at full length: TestDrillKill9 kills ten times
# (make test: five) and TestClusterTakeoverRace races for 20 sessions
# (make test: eight); set BROWSERD_DRILL_KILLS / BROWSERD_RACE_SESSIONS to
# change that.
#
# The load processes are this script's children: they are stopped when a
# run ends, and when the script ends for any reason (trap).
set -uo pipefail
export BROWSERD_DRILL_KILLS=${BROWSERD_DRILL_KILLS:-10} BROWSERD_RACE_SESSIONS=${BROWSERD_RACE_SESSIONS:-20}

n=${SOAK:-5}
load=${LOAD:-2}
dir=${SOAK_DIR:-/tmp/browserd-soak}
root=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$root" rev-parse --short HEAD)
if [ -n "$(git -C "$root" status --porcelain)" ]; then
  echo "soak: the work tree has changes that are not committed; the soak runs HEAD ($commit) without them" >&2
fi
mkdir -p "$dir"

burners=()
stop_load() {
  for p in "${burners[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${burners[@]}"; do wait "$p" 2>/dev/null; done
  burners=()
}
trap 'stop_load' EXIT
trap 'exit 130' INT TERM

# A CPU-bound process that stops by itself after a day at most, should
# this script be killed with SIGKILL (no trap runs then).
burn() { timeout 86400 sh -c 'while :; do :; done' & burners+=($!); }

rows=()
pass=0
for i in $(seq 1 "$n"); do
  clone=$(mktemp -d /tmp/browserd-soak-clone.XXXXXX)
  git clone -q "$root" "$clone/browserd" || { echo "soak: cloning $root failed" >&2; exit 1; }
  for _ in $(seq 1 "$load"); do burn; done
  log="$dir/run-$i.log"
  start=$(date +%s)
  (cd "$clone/browserd" && CI=true bash .ci/run) >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  stop_load
  # The failing tests, innermost first: go test's '--- FAIL: Name' lines.
  fails=$(grep -E '^\s*--- FAIL: ' "$log" | sed -E 's/^\s*--- FAIL: ([^ ]+).*/\1/' | sort -u | paste -sd ' ' -)
  if [ "$rc" -eq 0 ]; then
    pass=$((pass + 1))
    result="passed"
  else
    result="FAILED (exit $rc): ${fails:-no test named; see $log}"
  fi
  printf 'soak run %d/%d: %s in %d min %02d s\n' "$i" "$n" "$result" $((secs / 60)) $((secs % 60))
  rows+=("| $i | $commit | $load CPU-bound | $((secs / 60)) min $((secs % 60)) s | ${fails:-none}$([ "$rc" -ne 0 ] && [ -z "$fails" ] && echo " (exit $rc)") |")
  rm -rf "$clone"
done

echo
echo "| run | commit | load beside it | time | failures |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "soak: $pass of $n runs passed; logs in $dir"
[ "$pass" -eq "$n" ]

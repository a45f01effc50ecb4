#!/usr/bin/env bash
# make test's every test, after `make chromium`: the end-to-end
# suite, and beside it vet (Linux's, then macOS's and Windows's) and the
# unit tests with the race detector.
#
# - A throwaway PostgreSQL cluster (scripts/ensure-postgres.sh, which
#   installs PostgreSQL when missing) for the PostgreSQL store's tests and
#   the cluster's end-to-end tests, stopped afterwards whatever the outcome.
# - The end-to-end tests run E2E_PARALLEL at a time (2), each in a process
#   of its own, the longest first (cmd/testrun, with the times of an
#   earlier run in internal/e2e/testdata/durations.txt): a test whose checks
#   need its process to itself (a goroutine leak check, a drill that kills
#   what it started) runs beside another all the same. One browserd binary
#   (bin/e2e-browserd) and one test binary (bin/e2e.test) serve them all.
# - Vet and the unit tests run beside them, two packages at a time (-p 2):
#   the end-to-end step leaves a fifth of two cores idle (it waits on
#   browsers, timers and restarts), the checks fill it, and the whole takes
#   the end-to-end step's time instead of the sum. Their report is printed
#   when the end-to-end step is done. GORACE's atexit_sleep_ms=0 spares each
#   race-built test binary the second it sleeps before it exits.
#
# Both reports come from cmd/testreport: what go test prints without -v
# (each package's line, the whole output of a failed test) and, with
# TEST_TIMES=DIR, every test's time, slowest first, in DIR/unit.txt and
# DIR/e2e.txt (docs/testing.md; copy e2e.txt over the durations file when
# the suite's times have moved); testrun adds each end-to-end test's CPU
# time, Chromium's included, in DIR/e2e-cpu.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
MAKE=${MAKE:-make}
times=${TEST_TIMES:-}
e2e_pkg=github.com/browserd/browserd/internal/e2e

if [ "${1:-}" = checks ]; then
  # The checks beside the end-to-end step (this script runs itself so).
  "$MAKE" -s vet cross || exit 1
  report=(bin/testreport)
  [ -n "$times" ] && report+=(-top 500 -times "$times/unit.txt")
  GORACE=atexit_sleep_ms=0 $GO test -json -race -count=1 -p 2 -timeout 15m $($GO list ./... | grep -v /internal/e2e) |
    "${report[@]}"
  exit
fi

# The binaries, and the third-party corpus's bundle (npm, esbuild), at
# once.
"$MAKE" -s thirdparty >"${TMPDIR:-/tmp}/browserd-thirdparty.$$.log" 2>&1 &
tp=$!
mkdir -p bin
$GO build -o bin/ ./cmd/testreport ./cmd/testrun &
tools=$!
$GO build -o bin/e2e-browserd ./cmd/browserd &
daemon=$!
$GO test -c -o bin/e2e.test ./internal/e2e
built=$?
for p in $tools $daemon $tp; do wait "$p" || built=1; done
cat "${TMPDIR:-/tmp}/browserd-thirdparty.$$.log"; rm -f "${TMPDIR:-/tmp}/browserd-thirdparty.$$.log"
[ "$built" -eq 0 ] || { echo "FAIL: building the tests, their tools or the third-party corpus" >&2; exit 1; }

# Process ids not reused during the run. Where nothing raised it (no
# systemd, as on a bare CI machine), the kernel counts pids to 32768, and one
# run of the suite starts some 30,000 processes (Chromium's, mostly): every
# pid comes round again, and a signal sent by pid to a process that has
# since exited (Chromium alone sends its children some 2,000 SIGTERMs a run)
# may reach a daemon a test just started: on CI (stop 61) a daemon got
# SIGTERM or SIGINT while it started, and its test met a closed port.
# systemd's default, 4194304, keeps pids unique for hours; raised as root
# only, and said.
if [ -w /proc/sys/kernel/pid_max ] && [ "$(cat /proc/sys/kernel/pid_max)" -lt 4194304 ]; then
  echo "test.sh: kernel.pid_max $(cat /proc/sys/kernel/pid_max) -> 4194304 (systemd's default), so that no pid is reused during the run"
  echo 4194304 >/proc/sys/kernel/pid_max || true
fi

pgdir=$(mktemp -d /tmp/browserd-pg.XXXXXX)
side=$(mktemp -d /tmp/browserd-checks.XXXXXX)
checks=""
cleanup() {
  # The checks run in a process group of their own: stopped whole.
  [ -n "$checks" ] && kill -TERM -- "-$checks" 2>/dev/null
  scripts/ensure-postgres.sh stop "$pgdir"
  rm -rf "$side"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
url=$(scripts/ensure-postgres.sh start "$pgdir") || exit 1
export BROWSERD_TEST_POSTGRES="$url"

setsid -w "$0" checks >"$side/checks.log" 2>&1 &
checks=$!

e2ereport=(bin/testreport)
cpu=()
[ -n "$times" ] && e2ereport+=(-top 500 -times "$times/e2e.txt") && cpu=(-cpu "$times/e2e-cpu.txt")
BROWSERD_TEST_BIN="$PWD/bin/e2e-browserd" bin/testrun -n "${E2E_PARALLEL:-2}" "${cpu[@]}" -dir internal/e2e -pkg "$e2e_pkg" \
  -order internal/e2e/testdata/durations.txt "$PWD/bin/e2e.test" -test.timeout 15m | "${e2ereport[@]}"
e2e_rc=$?

wait "$checks"
checks_rc=$?
checks=""
echo "---- vet and the unit tests (run beside the end-to-end tests) ----"
cat "$side/checks.log"
if [ "$checks_rc" -ne 0 ] || [ "$e2e_rc" -ne 0 ]; then
  [ "$checks_rc" -ne 0 ] && echo "FAIL: vet or the unit tests" >&2
  [ "$e2e_rc" -ne 0 ] && echo "FAIL: the end-to-end tests" >&2
  exit 1
fi

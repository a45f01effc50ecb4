#!/usr/bin/env bash
# Says what failed in a `make test` log (.ci/run calls it on a failure):
# each failing test's name with the last lines of its output, a test
# binary that panicked or timed out, and the end of each daemon log the
# failed end-to-end tests kept in the folder given second.
#   scripts/ci-failures.sh TEST.LOG [DAEMON-LOG-DIR]
set -uo pipefail
log=${1:?usage: ci-failures.sh TEST.LOG [DAEMON-LOG-DIR]}
logs=${2:-}

echo
echo "================ what failed ================"
names=$(grep -E '^\s*--- FAIL: ' "$log" | sed -E 's/^\s*--- FAIL: ([^ ]+).*/\1/' | sort -u)
if [ -n "$names" ]; then
  echo "failing tests:"
  printf '  %s\n' $names
else
  echo "no test reported a failure: the step before the tests failed, or a test binary died (see below)"
fi
# Each failing test's own lines: the '--- FAIL' line and the lines
# indented under it, the last 30 of them.
awk '
  function flush() { if (n > 0) { s = (n > 30) ? n - 29 : 1; if (s > 1) print "    …"; for (i = s; i <= n; i++) print buf[i]; print "" } n = 0 }
  /^[ \t]*--- FAIL: / { flush(); match($0, /^[ \t]*/); ind = RLENGTH; print; collecting = 1; next }
  collecting {
    match($0, /^[ \t]*/)
    if (RLENGTH > ind && $0 !~ /^[ \t]*--- (PASS|FAIL|SKIP): /) { buf[++n] = $0; next }
    flush(); collecting = 0
  }
  END { flush() }
' "$log"
# A binary that panicked or ran out of time prints no '--- FAIL' for
# the test it was in.
grep -nE '^panic: |^fatal error: |test timed out after|^FAIL\s|^make: \*\*\*' "$log" | head -20
if [ -n "$logs" ] && [ -d "$logs" ]; then
  for f in "$logs"/*; do
    [ -f "$f" ] || continue
    echo
    echo "---- the end of $(basename "$f") ----"
    tail -n 40 "$f"
  done
fi
echo "============================================="

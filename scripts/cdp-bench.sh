#!/usr/bin/env bash
# Measures what browserd's CDP endpoint adds for a Playwright client
# (issue 49): the same script (scripts/cdp-bench.js) against browserd's
# /cdp and against a bare Chromium's --remote-debugging-port, interleaved
# RUNS times. Needs node, npm (playwright-core is installed into a
# temporary folder) and Chromium. Prints one JSON line per run.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
tmp=$(mktemp -d /tmp/cdp-bench.XXXXXX)
pids=()
cleanup() {
  # Each child leads a process group of its own (setsid): the group goes,
  # Chromium's renderers with it.
  for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  [ -n "${BD:-}" ] && "$BD" stop --data "$tmp/data" >/dev/null 2>&1 || true
  sleep 0.5
  rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/browserd" ./cmd/browserd
BD=$tmp/browserd
npm install --silent --no-audit --no-fund --prefix "$tmp/npm" playwright-core@1.65.1 >/dev/null
cp scripts/cdp-bench.js "$tmp/npm/"
mkdir -p "$tmp/site"
echo '<!doctype html><title>bench</title><input id=q><button onclick="document.title=q.value">go</button>' > "$tmp/site/index.html"
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
sp=$(port); (cd "$tmp/site" && exec python3 -m http.server "$sp" --bind 127.0.0.1 >/dev/null 2>&1) & pids+=($!)
bp=$(port)
setsid "$BD" serve --data "$tmp/data" --listen "127.0.0.1:$bp" --allow-host 127.0.0.1 >"$tmp/daemon.log" 2>&1 & pids+=($!)
cp=$(port)
# The binary itself, not Debian's wrapper script: killing the wrapper's pid
# would leave Chromium running.
chrome=$(ls /usr/lib/chromium/chromium-headless-shell /usr/lib/chromium/chromium 2>/dev/null | head -1)
[ -n "$chrome" ] || chrome=$(command -v chromium-headless-shell || command -v chromium)
setsid "$chrome" --headless --no-sandbox --no-first-run --disable-gpu --disable-background-networking --disable-component-update --disable-sync \
  --remote-debugging-port="$cp" --user-data-dir="$tmp/chrome" about:blank >/dev/null 2>&1 & pids+=($!)
sleep 2
tok=$(cat "$tmp/data/token")
for i in $(seq "$RUNS"); do
  node "$tmp/npm/cdp-bench.js" "http://127.0.0.1:$cp" "http://127.0.0.1:$sp/" chromium
  node "$tmp/npm/cdp-bench.js" "ws://127.0.0.1:$bp/cdp?task=bench$i&token=$tok" "http://127.0.0.1:$sp/" browserd
done

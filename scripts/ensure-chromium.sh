#!/usr/bin/env bash
# Installs Debian's Chromium when no Chromium is on this machine, and its
# headless shell (chromium-headless-shell: browserd's headless browser,
# half the start time) where the package is known.
set -euo pipefail
have_chromium=""
for c in /usr/bin/chromium chromium chromium-browser google-chrome; do
  if command -v "$c" >/dev/null 2>&1; then have_chromium=1; break; fi
done
have_shell=""
for c in /usr/bin/chromium-headless-shell chromium-headless-shell chrome-headless-shell; do
  if command -v "$c" >/dev/null 2>&1; then have_shell=1; break; fi
done
[ -n "$have_chromium" ] && [ -n "$have_shell" ] && exit 0
command -v apt-get >/dev/null 2>&1 || {
  [ -n "$have_chromium" ] && exit 0
  echo "browserd: no Chromium found and no apt-get here: install Chromium yourself, or pass --chromium PATH" >&2
  exit 1
}
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    [ -n "$have_chromium" ] && exit 0
    echo "browserd: run as root or install chromium yourself (apt-get install chromium chromium-headless-shell)" >&2
    exit 1
  fi
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
if [ -z "$have_chromium" ]; then
  echo "browserd: Chromium not found; installing Debian's chromium and chromium-headless-shell packages" >&2
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq chromium >/dev/null
  command -v chromium >/dev/null
fi
# The headless shell is optional: without it browserd runs Chromium's own
# headless mode. Only installed where apt already knows the package, so
# a machine without it is not updated on every run.
if [ -z "$have_shell" ] && apt-cache show chromium-headless-shell >/dev/null 2>&1; then
  echo "browserd: installing chromium-headless-shell (browserd's headless browser)" >&2
  $SUDO apt-get install -y -qq chromium-headless-shell >/dev/null ||
    echo "browserd: chromium-headless-shell did not install; browserd runs Chromium's own headless mode" >&2
fi
exit 0

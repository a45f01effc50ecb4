#!/usr/bin/env bash
# Installs Debian's Chromium when no Chromium is on this machine.
set -euo pipefail
for c in /usr/bin/chromium chromium chromium-browser google-chrome; do
  if command -v "$c" >/dev/null 2>&1; then exit 0; fi
done
echo "browserd: Chromium not found; installing Debian's chromium package" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "browserd: run as root or install chromium yourself (apt-get install chromium)" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null

#!/usr/bin/env bash
# The real browser for the page tests (issue #16): Debian's chromium and chromium-driver.
# Installed once; a machine that has them already is left alone.
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
  exit 0
fi
sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
echo "installing chromium and chromium-driver (Debian packages) for the browser tests"
sudo_ apt-get update -qq
sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  chromium chromium-driver fonts-dejavu-core >/dev/null
command -v chromium >/dev/null && command -v chromedriver >/dev/null

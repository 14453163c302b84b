#!/bin/sh
# What the control plane's tests need on a fresh Debian machine, beyond the Rust toolchain:
# headless Chromium for the dashboard test. Idempotent; run as root.
set -eu
if command -v chromium >/dev/null 2>&1; then
    echo "control/ci-setup.sh: chromium is installed"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium fonts-dejavu-core

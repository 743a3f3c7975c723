#!/usr/bin/env bash
# Sets up what the tests need on a Debian machine and runs every test of the workspace.
# README's test command; CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests need beyond the Rust toolchain (none yet: the model and its
# tests are pure Rust). Window tests will add xvfb and mesa here.
PACKAGES=()
if [ ${#PACKAGES[@]} -gt 0 ]; then
  missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
      echo "missing Debian packages: ${missing[*]} (run as root or install them)" >&2
      exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi

cargo test --workspace --locked

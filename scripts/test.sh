#!/usr/bin/env bash
# Sets up what the tests need on a Debian machine and runs every test of the workspace.
# README's test command; CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests need beyond the Rust toolchain: an X server without a
# display (Xvfb), Mesa's software Vulkan and GL for wgpu, the X/Wayland client
# libraries winit loads at run time, xdotool to type into the window and ImageMagick to
# read its pixels, a colour emoji font (the emoji tests need one), and fontconfig with
# the fonts the glyph tests find through it (Symbola, Nanum, a .ttc collection, Fira
# Code for the ligature tests), and
# desktop-file-validate for the packaging test, and tmux for the control-mode client's
# tests against a real tmux (core/tests/tmux_real.rs), and openssh-server with
# openssh-client for the remote panes' end-to-end test through a real sshd on
# 127.0.0.1 (core/tests/tmux_ssh.rs, app/tests/remote.rs, app/tests/remote_xvfb.rs:
# ssh-keygen, sshd, ssh), and openbox, a window manager for the test that a second
# start raises the running window (a request to the window manager), and xclip to read
# the X clipboard that copy mode and hints fill; tini, a reaper that outlives a killed
# tern, as a desktop's session manager does (app/tests/keeper.rs: an exit code read
# back after tern was gone); chafa and timg, real image tools whose sixel and kitty
# output the image tests draw and read back (app/tests/image_tools_xvfb.rs,
# app/tests/image_probes.rs).
PACKAGES=(xvfb xauth mesa-vulkan-drivers libvulkan1 libegl1 libegl-mesa0 libgl1-mesa-dri
  libgbm1 libxkbcommon-x11-0 libxcursor1 libxi6 libxrandr2 libx11-xcb1 libwayland-client0
  xdotool imagemagick git fonts-noto-color-emoji fontconfig fonts-dejavu-core fonts-symbola
  fonts-nanum fonts-wqy-microhei fonts-firacode desktop-file-utils
  bash zsh fish dbus tmux openssh-server openssh-client openbox xclip weston tini chafa timg)
# The programs those packages bring, for systems without dpkg (Fedora, Arch, macOS):
# what is missing is named, and the tests run with what is there (those that need a
# missing program fail saying which one).
TOOLS=(Xvfb xauth xdotool import git fc-match desktop-file-validate bash zsh fish
  dbus-run-session tmux sshd ssh ssh-keygen openbox xclip weston weston-screenshooter tini chafa
  timg)
if command -v dpkg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
      echo "missing Debian packages: ${missing[*]} (run as root, or install them; the tests run anyway)" >&2
    else
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
  fi
else
  absent=()
  for t in "${TOOLS[@]}"; do
    command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] || absent+=("$t")
  done
  if [ ${#absent[@]} -gt 0 ]; then
    echo "not a Debian system; programs the tests use that are not installed: ${absent[*]}" >&2
  fi
fi

# The tests run with a HOME of their own, empty: the shells they start must not read
# the developer's startup files or tern config (a .bashrc that runs `pyenv init` left
# a lock behind when a test's shell was killed mid-rehash, and every later shell
# waited on it). Tests that need startup files write them in a HOME they make. Cargo
# and rustup keep their own homes.
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
unset XDG_CONFIG_HOME XDG_STATE_HOME XDG_DATA_HOME XDG_CACHE_HOME
test_home="$(mktemp -d "${TMPDIR:-/tmp}/tern-test-home.XXXXXX")"
trap 'rm -rf "$test_home"' EXIT

# A test that needs tmux or sshd fails when it is missing (TERN_SKIP_MISSING_TOOLS=1
# skips those tests instead, and says so).
HOME="$test_home" cargo test --workspace --locked

# tern against the published eframe and egui-winit, the patch series off
# (patches/README.md): it builds, and the window's own suite passes.
./scripts/vendor-patches.sh upstream >/dev/null
HOME="$test_home" cargo test -p tern --locked --no-default-features \
  --config "patch.crates-io.eframe.path=\"$PWD/target/upstream/eframe\"" \
  --config "patch.crates-io.egui-winit.path=\"$PWD/target/upstream/egui-winit\"" \
  --test xvfb

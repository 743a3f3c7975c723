#!/bin/sh
# Makes vendor/<crate> from the crate as published on crates.io and tern's patch series,
# patches/<crate>/*.patch, applied in order (patches/README.md).
#
#   scripts/vendor-patches.sh apply      vendor/ = the published crates + the series
#   scripts/vendor-patches.sh check      the same in a temporary folder, compared with
#                                        vendor/ (exit status 1 when they differ)
#   scripts/vendor-patches.sh upstream   target/upstream/<crate> = the published crates,
#                                        unpatched; prints the cargo flags that build
#                                        tern against them (the series off)
#
# The published crates come from cargo's own cache ($CARGO_HOME/registry/cache), fetched
# with `cargo fetch` when they are not there; each is checked against its SHA-256 below.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cargo_home=${CARGO_HOME:-$HOME/.cargo}
# name version sha256 of the .crate file
crates="eframe 0.37.0 9c5642501a65ca657d05f00c643a5c14ff2346cb3818032bfe23d58e1f8e5f84
egui-winit 0.37.0 e4e449f4c4a2a60c7ccb4ba7fa4078417bfe1f9ddc03b5e05ce75748e33a70de"

die() {
    echo "vendor-patches: $*" >&2
    exit 1
}

# The published .crate file of $1 $2, fetched by cargo when it is not in its cache.
crate_file() {
    found=$(ls "$cargo_home"/registry/cache/*/"$1-$2.crate" 2>/dev/null | head -n 1 || true)
    if [ -z "$found" ]; then
        tmp=$(mktemp -d)
        mkdir "$tmp/src"
        : >"$tmp/src/lib.rs"
        printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = { version = "=%s", default-features = false }\n' \
            "$1" "$2" >"$tmp/Cargo.toml"
        (cd "$tmp" && cargo fetch --quiet) || die "cargo could not fetch $1 $2"
        rm -rf "$tmp"
        found=$(ls "$cargo_home"/registry/cache/*/"$1-$2.crate" 2>/dev/null | head -n 1 || true)
        [ -n "$found" ] || die "$1-$2.crate is not in $cargo_home/registry/cache"
    fi
    echo "$found"
}

# Unpacks the published crate $1 $2 (checked against $3) into folder $4, without the
# files cargo adds when it packages or unpacks a crate.
unpack() {
    file=$(crate_file "$1" "$2")
    echo "$3  $file" | sha256sum --check --status || die "$file: not the published $1 $2 (SHA-256)"
    rm -rf "$4"
    mkdir -p "$4"
    tar -xzf "$file" -C "$4" --strip-components=1
    rm -f "$4/.cargo-ok" "$4/.cargo_vcs_info.json" "$4/Cargo.toml.orig" "$4/Cargo.lock"
}

# Makes $2/<crate> for every crate: published, then patched when $1 is "patched".
make_into() {
    echo "$crates" | while read -r name version sum; do
        unpack "$name" "$version" "$sum" "$2/$name"
        [ "$1" = patched ] || continue
        for p in "$root/patches/$name"/*.patch; do
            [ -e "$p" ] || continue
            patch --quiet --forward --no-backup-if-mismatch -p1 -d "$2/$name" <"$p" ||
                die "$p does not apply to $name $version"
        done
    done
}

case "${1:-}" in
apply)
    make_into patched "$root/vendor"
    echo "vendor/ made from the published crates and patches/"
    ;;
check)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    make_into patched "$tmp"
    if diff -r "$tmp" "$root/vendor"; then
        echo "vendor/ is the published crates with patches/ applied"
    else
        die "vendor/ differs from the published crates with patches/ applied (above)"
    fi
    ;;
upstream)
    make_into published "$root/target/upstream"
    flags=""
    for name in $(echo "$crates" | cut -d' ' -f1); do
        flags="$flags --config 'patch.crates-io.$name.path=\"$root/target/upstream/$name\"'"
    done
    echo "the published crates are in target/upstream/; build and test tern with the series off:"
    echo "  cargo build -p tern --no-default-features$flags"
    echo "  cargo test -p tern --no-default-features$flags --test NAME"
    ;;
*)
    sed -n '2,14s/^# \{0,1\}//p' "$0" >&2
    exit 2
    ;;
esac

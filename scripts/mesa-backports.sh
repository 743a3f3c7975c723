#!/bin/sh
# Puts a current Mesa (Debian bookworm-backports' build, 25.0 when this was written) in a
# folder of its own, extracted from Debian's packages and not installed, so the window's
# benchmarks can run on the software renderers that current distributions ship beside
# the machine's own (Debian 12's Mesa 22.3, whose lavapipe sends every frame to the X
# server as a PutImage over the socket; from 23.1 lavapipe presents through MIT-SHM).
#
#   scripts/mesa-backports.sh [DIR]     (DIR defaults to target/mesa-backports)
#   . DIR/env.sh                        then every program started from that shell
#                                       (tern, kitty, alacritty, Xvfb's clients) uses it
#
# Needs curl, xz and dpkg-deb; downloads about 40 MB from deb.debian.org.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/target/mesa-backports}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages="mesa-vulkan-drivers mesa-libgallium libgl1-mesa-dri libglx-mesa0 libegl-mesa0
libgbm1 libdrm2 libdrm-amdgpu1 libdrm-intel1"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -sSf "$mirror/dists/bookworm-backports/main/binary-amd64/Packages.xz" | xz -dc >"$tmp/Packages"
rm -rf "$dir"
mkdir -p "$dir"
for p in $packages; do
    file=$(awk -v p="$p" '$1 == "Package:" { take = ($2 == p) } take && $1 == "Filename:" { print $2; exit }' "$tmp/Packages")
    [ -n "$file" ] || { echo "mesa-backports: $p is not in bookworm-backports" >&2; exit 1; }
    curl -sSf -o "$tmp/$p.deb" "$mirror/$file"
    dpkg-deb -x "$tmp/$p.deb" "$dir"
done
lib=$dir/usr/lib/x86_64-linux-gnu
sed "s#\"library_path\": \"[^\"]*\"#\"library_path\": \"$lib/libvulkan_lvp.so\"#" \
    "$dir/usr/share/vulkan/icd.d/lvp_icd.json" >"$dir/lvp_icd.json"
cat >"$dir/env.sh" <<EOF
# Mesa $(awk '$1 == "Package:" { take = ($2 == "mesa-vulkan-drivers") } take && $1 == "Version:" { print $2; exit }' "$tmp/Packages") from bookworm-backports, extracted by scripts/mesa-backports.sh
export LD_LIBRARY_PATH=$lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export VK_DRIVER_FILES=$dir/lvp_icd.json
export VK_ICD_FILENAMES=$dir/lvp_icd.json
export LIBGL_DRIVERS_PATH=$lib/dri
export __EGL_VENDOR_LIBRARY_FILENAMES=$dir/usr/share/glvnd/egl_vendor.d/50_mesa.json
EOF
head -n 1 "$dir/env.sh"
echo "run '. $dir/env.sh' before the benchmark"

#!/usr/bin/env bash
# Build the TacTix contest solver as one static executable for a PlayStation 2 running
# Linux (MIPS R5900: MIPS II code, no FPU use, musl, no dynamic loader).
#
#   scripts/build-ps2.sh            # -> target/ps2/contest-ps2 (and a QEMU with -cpu R5900)
#
# On a fresh Debian 12 machine it installs what it needs from Debian's packages (Debian's
# Rust 1.96 with its standard library source, the mipsel cross compiler, QEMU's build
# dependencies) and builds, once, into $GAMESMAN_PS2_CACHE (default ~/.cache/gamesman-ps2):
#   - musl 1.2.3 from Debian's source, compiled -march=mips2 -mfix-r5900 -msoft-float
#     (Debian's own mipsel libraries are mips32r2 with a double-precision FPU: SIGILL on an R5900);
#   - qemu-mipsel 7.2 from Debian's source with the R5900 CPU model added back
#     (ps2/qemu-r5900-model.c.inc), for `qemu-mipsel -cpu R5900`;
#   - ps2/unwind-stub.c as libunwind.a (Rust's musl targets link -lunwind; panic=abort
#     never unwinds).
# Then it builds `contest` with -Zbuild-std for ps2/mipsel-sony-ps2-musl.json.in.
# Set GAMESMAN_PS2_NO_QEMU=1 to skip the emulator.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${GAMESMAN_PS2_CACHE:-$HOME/.cache/gamesman-ps2}
out=$root/target/ps2
mkdir -p "$cache/src" "$out"
log() { printf 'build-ps2: %s\n' "$*" >&2; }

sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# --- Debian packages -----------------------------------------------------------------
packages=(rustc-web cargo-web rust-web-src gcc-mipsel-linux-gnu binutils-mipsel-linux-gnu
          ninja-build meson libglib2.0-dev pkg-config python3 xz-utils make)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    sudo_ apt-get update -qq
    sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Debian's sources (musl and qemu) need a deb-src entry.
fetch_source() { # package version-glob
    local pkg=$1
    if ! ls "$cache/src/${pkg}_"*.orig.tar.* >/dev/null 2>&1; then
        if ! apt-get source --help >/dev/null 2>&1 || ! (cd "$cache/src" && apt-get source -qq --download-only "$pkg" >/dev/null 2>&1); then
            log "adding Debian's deb-src entries to fetch the $pkg source"
            sudo_ tee /etc/apt/sources.list.d/gamesman-deb-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
            sudo_ apt-get update -qq
            (cd "$cache/src" && apt-get source -qq --download-only "$pkg" >/dev/null 2>&1)
        fi
    fi
}
command -v dpkg-source >/dev/null || sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev >/dev/null

# --- musl for the R5900 --------------------------------------------------------------
musl=$cache/musl
if [ ! -f "$musl/lib/libc.a" ]; then
    fetch_source musl
    log "building musl (mips2, -mfix-r5900, soft-float)"
    rm -rf "$cache/src/musl-build" && mkdir -p "$cache/src/musl-build"
    tar xzf "$cache"/src/musl_*.orig.tar.gz -C "$cache/src/musl-build" --strip-components=1
    (cd "$cache/src/musl-build" &&
        ./configure --target=mipsel-linux-gnu CC=mipsel-linux-gnu-gcc \
            CFLAGS="-march=mips2 -mfix-r5900 -msoft-float -O2" --prefix="$musl" --disable-shared >/dev/null &&
        make -j"$(nproc)" >/dev/null && make install >/dev/null)
fi

# --- the unwinder stand-in ----------------------------------------------------------
unwind=$cache/unwind
if [ ! -f "$unwind/libunwind.a" ] || [ "$root/ps2/unwind-stub.c" -nt "$unwind/libunwind.a" ]; then
    mkdir -p "$unwind"
    mipsel-linux-gnu-gcc -march=mips2 -mfix-r5900 -msoft-float -O2 -ffreestanding -c \
        "$root/ps2/unwind-stub.c" -o "$unwind/unwind-stub.o"
    rm -f "$unwind/libunwind.a"
    mipsel-linux-gnu-ar rcs "$unwind/libunwind.a" "$unwind/unwind-stub.o"
fi

# --- QEMU with the R5900 model -------------------------------------------------------
qemu=$cache/qemu/bin/qemu-mipsel
has_r5900() { # (not `| grep -q`: with pipefail, qemu's SIGPIPE would fail the test)
    [ -x "$qemu" ] && case "$("$qemu" -cpu help 2>/dev/null)" in *R5900*) true ;; *) false ;; esac
}
if [ -z "${GAMESMAN_PS2_NO_QEMU:-}" ] && ! has_r5900; then
    fetch_source qemu
    log "building qemu-mipsel with the R5900 model (a few minutes)"
    src=$cache/src/qemu-build
    rm -rf "$src" && mkdir -p "$src"
    tar xJf "$cache"/src/qemu_*.orig.tar.xz -C "$src" --strip-components=1
    python3 - "$src/target/mips/cpu-defs.c.inc" "$root/ps2/qemu-r5900-model.c.inc" <<'PY'
import sys
path, model = sys.argv[1], open(sys.argv[2]).read()
s = open(path).read()
anchor = '#if defined(TARGET_MIPS64)\n'  # the R5900 is a 32-bit (o32) model
if '"R5900"' not in s:
    assert anchor in s, "cannot find where to add the R5900 model"
    s = s.replace(anchor, model + anchor, 1)
    open(path, "w").write(s)
PY
    mkdir -p "$src/build"
    (cd "$src/build" && PATH=/usr/bin:$PATH ../configure --target-list=mipsel-linux-user --disable-system \
        --disable-tools --disable-docs --disable-werror --disable-install-blobs --disable-capstone \
        --disable-slirp --disable-fdt --meson=/usr/bin/meson --prefix="$cache/qemu" >/dev/null &&
        PATH=/usr/bin:$PATH ninja -j"$(nproc)" qemu-mipsel >/dev/null)
    mkdir -p "$cache/qemu/bin" && cp "$src/build/qemu-mipsel" "$qemu"
    rm -rf "$src"
fi

# --- the contest binary --------------------------------------------------------------
spec=$out/mipsel-sony-ps2-musl.json
sed -e "s|@MUSL@|$musl|g" -e "s|@UNWIND@|$unwind|g" -e "s|@LINKER@|mipsel-linux-gnu-gcc|g" \
    "$root/ps2/mipsel-sony-ps2-musl.json.in" > "$spec"
log "building contest for the R5900 (Debian's Rust $(/usr/bin/rustc --version | cut -d' ' -f2), -Zbuild-std)"
(cd "$root" && PATH=/usr/bin:$PATH RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$out/cargo" \
    cargo build --quiet --profile ps2 -p tactix --bin contest \
        -Zbuild-std=std,panic_abort -Zjson-target-spec --target "$spec")
cp "$out/cargo/mipsel-sony-ps2-musl/ps2/contest" "$out/contest-ps2"
size=$(stat -c %s "$out/contest-ps2")
log "built target/ps2/contest-ps2: $size bytes ($(file -b "$out/contest-ps2" 2>/dev/null | cut -d, -f1-4 || true))"
[ -x "$qemu" ] && ln -sf "$qemu" "$out/qemu-mipsel"
echo "$out/contest-ps2"

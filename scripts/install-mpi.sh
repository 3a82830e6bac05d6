#!/usr/bin/env bash
# What the `mpi` feature needs (issue #31): Debian's OpenMPI (mpirun, the library and mpicc,
# which the `mpi` crate's build asks for its flags), libclang for the bindings' bindgen, and
# pkg-config. Installed once; a machine that has them already is left alone (quick).
set -euo pipefail
have() {
  command -v mpirun >/dev/null && command -v mpicc >/dev/null && command -v pkg-config >/dev/null \
    && compgen -G "/usr/lib/llvm-*/lib/libclang*.so*" >/dev/null
}
if have; then
  exit 0
fi
sudo_() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
echo "installing openmpi-bin, libopenmpi-dev, libclang-dev and pkg-config (Debian packages) for the MPI tests"
sudo_ apt-get update -qq
sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  openmpi-bin libopenmpi-dev libclang-dev pkg-config >/dev/null
have

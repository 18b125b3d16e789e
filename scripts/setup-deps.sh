#!/usr/bin/env bash
# Installs everything Loam builds and tests with, from Debian's packages (and PyPI for the oracle
# scripts). Idempotent: a package already present is left alone. Run as root on a fresh machine.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  libssl-dev libboost-dev libpcre2-dev libicu-dev
  clang-14 libclang-rt-14-dev llvm-14-tools
  python3 python3-numpy
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

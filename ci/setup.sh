#!/bin/sh
# Install what building, testing, fuzzing and the analysis gates need
# (Debian packages).  Safe to run again: apt-get skips what is there.
#   build:     build-essential pkg-config check clang llvm
#   fuzzing:   libclang-rt-14-dev libfuzzer-14-dev afl++ zip unzip
#   reference: libtraceevent-dev trace-cmd (differential tests and harness)
#   CLI:       libzstd-dev zlib1g-dev zstd
#   gates:     cppcheck clang-tidy clang-tools (scan-build),
#              llvm (llvm-cov, llvm-profdata) and jq for make coverage
#   python:    python3-dev python3-setuptools python3-pip (make python, pip
#              install ./python) python3-numpy python3-pandas python3-pytest
#              (its tests), all for Debian's /usr/bin/python3
#   perfetto:  protobuf-compiler python3-protobuf (tests/perfetto/check.sh)
#   bench:     time (/usr/bin/time: peak memory in bench/hostile.sh)
#   tests:     strace (a test counts the directory reads of a source)
set -eu
pkgs="build-essential pkg-config check clang llvm libclang-rt-14-dev libfuzzer-14-dev
afl++ zip unzip libtraceevent-dev trace-cmd libzstd-dev zlib1g-dev zstd
cppcheck clang-tidy clang-tools jq protobuf-compiler python3-protobuf
python3-dev python3-setuptools python3-pip python3-numpy python3-pandas python3-pytest
time strace"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
echo "setup: installed $(echo $pkgs | wc -w) packages"
# The Parquet readers tests/parquet_check.sh runs (DuckDB, hyparquet):
# npm packages pinned by tests/node/package-lock.json, into tests/node/.
command -v npm >/dev/null 2>&1 ||
	$SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
(cd "$(dirname "$0")/../tests/node" && npm ci --no-audit --no-fund --loglevel=error)
echo "setup: installed the npm packages of tests/node"

#!/bin/sh
# Install what building, testing and fuzzing need (Debian packages).
# Safe to run again: apt-get skips what is already there.
set -eu
pkgs="build-essential pkg-config check clang llvm libclang-rt-14-dev libfuzzer-14-dev
afl++ libtraceevent-dev trace-cmd libzstd-dev zlib1g-dev zstd cppcheck clang-tidy
clang-tools lcov"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
echo "setup: installed $(echo $pkgs | wc -w) packages"

#!/bin/bash -eu
# ClusterFuzzLite runs the same build as OSS-Fuzz: one script, in ci/oss-fuzz/.
exec "$SRC/tracebound/ci/oss-fuzz/build.sh"

"""Build tracebound's Python extension from the library's own sources.

The extension compiles lib/*.c (the whole library: no allocation, no I/O)
together with python/src/*.c, so nothing needs to be installed first and
the only build dependencies are a C compiler and CPython's headers
(Debian: python3-dev, python3-setuptools).

    /usr/bin/python3 -m pip install --no-build-isolation ./python
    make python          # builds into build/python (PYTHONPATH=build/python)

Environment: TRACEBOUND_SANITIZE=1 builds with ASan+UBSan (then run Python
with LD_PRELOAD of the compiler's asan runtime); TRACEBOUND_WERROR=1 makes
warnings errors (make python sets it).
"""
import glob
import os
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("TRACEBOUND_SRC") or os.path.dirname(HERE)  # the source tree
LIB = os.path.join(ROOT, "lib")
INCLUDE = os.path.join(ROOT, "include")
# host/: the POSIX side (files, folders), shared with the CLI
HOST = os.path.join(ROOT, "host")

if not os.path.isfile(os.path.join(INCLUDE, "tracebound", "session.h")):
    sys.exit("tracebound: build from the source tree (python/ beside lib/ and include/); "
             "pip builds in place: pip install --no-build-isolation ./python")


def rel(paths):
    # setuptools wants paths relative to setup.py
    return sorted(os.path.relpath(p, HERE) for p in paths)


# lib/ by absolute path: a relative "../lib/x.c" would put its object at
# BUILD_TEMP/../lib/x.o, over the Makefile's own build/lib/x.o
sources = (rel(glob.glob(os.path.join(HERE, "src", "*.c"))) + sorted(glob.glob(os.path.join(LIB, "*.c")))
           + sorted(glob.glob(os.path.join(HOST, "*.c"))))

cflags = ["-std=gnu11", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
          "-Wno-cast-function-type"]
ldflags = []
if os.environ.get("TRACEBOUND_WERROR"):
    cflags.append("-Werror")
if os.environ.get("TRACEBOUND_SANITIZE"):
    san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
    cflags += san + ["-O1", "-g"]
    ldflags += san

setup(
    name="tracebound",
    version="0.1.0",
    description="Safe, fast decoding of ftrace / trace-cmd trace.dat captures and FreeBSD "
                "pmclog streams (CPython extension over the tracebound C library)",
    license="MIT",
    packages=["tracebound"],
    ext_modules=[
        Extension(
            "tracebound._tracebound",
            sources=sources,
            include_dirs=[rel([INCLUDE])[0], rel([LIB])[0], "src", rel([HOST])[0]],
            depends=rel(glob.glob(os.path.join(HERE, "src", "*.h")) +
                        glob.glob(os.path.join(LIB, "*.h")) +
                        glob.glob(os.path.join(HOST, "*.h")) +
                        glob.glob(os.path.join(INCLUDE, "tracebound", "*.h"))),
            extra_compile_args=cflags,
            extra_link_args=ldflags,
            libraries=["dl"],
        )
    ],
    python_requires=">=3.10",
    zip_safe=False,
)

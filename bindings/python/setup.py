"""Builds the toid package: the C extension toid._toid over libtoid.

libtoid is linked in statically (libtoid.a from the CMake build, compiled
with -fPIC and hidden visibility) and its symbols are kept out of the
module's dynamic symbol table (--exclude-libs), so the module needs no
rpath, no LD_LIBRARY_PATH and no ldconfig, and never meets another libtoid
loaded in the same process.

Where libtoid comes from (environment):
  TOID_INCLUDE_DIR  the directory of toid.h   (default: ../../include)
  TOID_STATIC_LIB   the path of libtoid.a     (default: ../../build/libtoid.a)
  TOID_WERROR=1     compile the module with -Werror (the CMake build sets it)
  TOID_CLAIM_INCLUDE_DIR  the directory of toid_claim.h (default: ../../claim)
  TOID_CLAIM_STATIC_LIB   libtoid_claim.a, the node claims (default: ../../build/claim/)
  TOID_CLAIM_LIBS   what it needs beside it, ':'-separated paths or names
                    (with etcd built in: libjansson.so:dl; the CMake build sets it)

    cmake -S . -B build && cmake --build build -j2       # at the top of the checkout
    cd bindings/python && python3 setup.py build_ext --inplace
"""
import os

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
include_dir = os.environ.get("TOID_INCLUDE_DIR", os.path.join(TOP, "include"))
static_lib = os.environ.get("TOID_STATIC_LIB", os.path.join(TOP, "build", "libtoid.a"))

claim_include = os.environ.get("TOID_CLAIM_INCLUDE_DIR", os.path.join(TOP, "claim"))
claim_lib = os.environ.get("TOID_CLAIM_STATIC_LIB",
                           os.path.join(TOP, "build", "claim", "libtoid_claim.a"))
claim_libs = [x for x in os.environ.get("TOID_CLAIM_LIBS", "").split(":") if x]

for lib, var in ((static_lib, "TOID_STATIC_LIB"), (claim_lib, "TOID_CLAIM_STATIC_LIB")):
    if not os.path.exists(lib):
        raise SystemExit(f"setup.py: {lib} not found: build libtoid with CMake first, "
                         f"or set {var}")

setup(
    name="toid",
    version="0.1.0",
    description="Time-ordered IDs (ULID, UUIDv7, Ulid-Flake, SCRU160, Nanoflake, uid11) over libtoid",
    license="MIT",
    packages=["toid"],
    package_data={"toid": ["__init__.pyi", "py.typed"]},
    python_requires=">=3.8",
    ext_modules=[
        Extension(
            "toid._toid",
            sources=["toid/_toid.c"],
            include_dirs=[include_dir, claim_include, os.path.join(HERE, "..", "common")],
            # the claim library first: it uses libtoid
            extra_objects=[claim_lib, static_lib] + [x for x in claim_libs if "/" in x],
            libraries=[x for x in claim_libs if "/" not in x],
            extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Wshadow",
                                "-Wstrict-prototypes", "-Wmissing-prototypes",
                                "-fvisibility=hidden"]
            + (["-Werror"] if os.environ.get("TOID_WERROR") == "1" else []),
            extra_link_args=["-Wl,--exclude-libs,ALL", "-pthread"],
        )
    ],
)

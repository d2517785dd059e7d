"""Builds the toid package: the C extension toid._toid over libtoid.

The package's metadata is in pyproject.toml (setuptools, PEP 517); this file
says how the extension is built. libtoid and its claim library are compiled
from their C sources into a static archive of the build directory, which the
module links in with its symbols kept out of the module's dynamic symbol
table (--exclude-libs): the module needs no rpath, no LD_LIBRARY_PATH, no
installed libtoid, and never meets another libtoid loaded in the same
process. Nothing but a C compiler and Python's headers is needed:

    pip install bindings/python                   # from a checkout
    pip install toid-0.1.0.tar.gz                 # an sdist (python3 -m build --sdist)

Where the C sources come from: the sdist carries them in _libtoid/ (copied
there by the sdist command below, from src/, include/, claim/ and
bindings/common/ of the checkout); a checkout's build reads them in place.

The claim library's etcd backend (claims in etcd, TOID_CLAIM=etcd=URL) is
built in when jansson's and libcurl's headers are found (Debian:
libjansson-dev libcurl4-openssl-dev; jansson is linked, libcurl is loaded
with dlopen() on the first etcd claim); without them the package has the
local claims only, and an etcd claim is refused with a message naming what
was missing at build time. Environment:
  TOID_ETCD=auto|1|0     auto (the default): as found; 1: fail without them; 0: leave it out
  TOID_HOST_REGISTRY, TOID_HOST_REGISTRY_GROUP
                         the host's node registry (default /var/lib/toid/claims,
                         group toid), as CMake's cache variables of those names
  TOID_WERROR=1          compile with -Werror

The CMake build of the checkout links the static libraries it built
instead (the same objects its other tests run), through:
  TOID_STATIC_LIB        libtoid.a; its presence selects this mode
  TOID_INCLUDE_DIR       the directory of toid.h
  TOID_CLAIM_STATIC_LIB  libtoid_claim.a
  TOID_CLAIM_INCLUDE_DIR the directory of toid_claim.h
  TOID_CLAIM_LIBS        what it needs beside it, ':'-separated paths or names
                         (with etcd built in: libjansson.so:dl)
"""
import glob
import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext as _build_ext
from setuptools.command.sdist import sdist as _sdist

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLED = os.path.join(HERE, "_libtoid")              # in an sdist
CHECKOUT = os.path.normpath(os.path.join(HERE, "..", ".."))
WERROR = os.environ.get("TOID_WERROR") == "1"
WARNINGS = ["-Wall", "-Wextra", "-Wshadow", "-Wstrict-prototypes", "-Wmissing-prototypes"]
LINK = ["-Wl,--exclude-libs,ALL", "-pthread"]


def source_dirs():
    """{src, include, claim, common}: the sdist's copy, else the checkout's."""
    for top, common in ((BUNDLED, os.path.join(BUNDLED, "common")),
                        (CHECKOUT, os.path.join(CHECKOUT, "bindings", "common"))):
        if os.path.isfile(os.path.join(top, "include", "toid.h")) and \
           os.path.isfile(os.path.join(top, "src", "registry.c")):
            return {"src": os.path.join(top, "src"), "include": os.path.join(top, "include"),
                    "claim": os.path.join(top, "claim"), "common": common}
    raise SystemExit(f"setup.py: libtoid's C sources are neither in {BUNDLED} (an sdist) "
                     f"nor in {CHECKOUT} (a checkout): build from a checkout of toid or "
                     "from its sdist")


# The claim library without its etcd backend (claim/CMakeLists.txt).
CLAIM_LOCAL = ["claim.c", "claim_host.c", "claim_local.c", "claim_process.c"]
CLAIM_ETCD = ["claim_etcd.c", "curl_lazy.c"]

ETCD_PROBE = """#include <curl/curl.h>
#include <jansson.h>
int toid_probe(void);
int toid_probe(void) { json_t *j = json_object(); CURLcode c = CURLE_OK; json_decref(j); return (int)c; }
"""


class build_ext(_build_ext):
    """Compiles libtoid and the claim library (unless a prebuilt libtoid.a is
    named) into a static archive of the build directory, and links it in."""

    def build_extension(self, ext):
        if not PREBUILT:
            self._bundle(ext)
        super().build_extension(ext)

    def _etcd(self, dirs):
        """(built in, why not): the etcd backend if its headers and jansson are found."""
        want = os.environ.get("TOID_ETCD", "auto")
        if want == "0":
            return False, ("the package was built with TOID_ETCD=0; to have it, reinstall "
                           "with jansson and libcurl's headers (Debian: libjansson-dev "
                           "libcurl4-openssl-dev)")
        tmp = tempfile.mkdtemp(prefix="toid-etcd-probe-")
        missing = []
        try:
            for header in ("jansson.h", "curl/curl.h"):
                probe = os.path.join(tmp, "h.c")
                with open(probe, "w", encoding="utf-8") as f:
                    f.write(f"#include <{header}>\n")
                try:
                    self.compiler.compile([probe], output_dir=tmp)
                except Exception:
                    missing.append(header)
            if not missing:
                probe = os.path.join(tmp, "probe.c")
                with open(probe, "w", encoding="utf-8") as f:
                    f.write(ETCD_PROBE)
                try:
                    objs = self.compiler.compile([probe], output_dir=tmp)
                    self.compiler.link_shared_object(objs, os.path.join(tmp, "probe.so"),
                                                     libraries=["jansson"])
                except Exception:
                    missing.append("libjansson.so")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        if not missing:
            return True, None
        why = (f"{' and '.join(missing)} not found when the package was built; to have it, "
               "reinstall the package with libjansson-dev and libcurl4-openssl-dev installed "
               "(Debian)")
        if want == "1":
            raise SystemExit(f"setup.py: TOID_ETCD=1, but {why}")
        print(f"setup.py: toid's etcd claim backend left out: {why}", file=sys.stderr)
        return False, why

    def _bundle(self, ext):
        dirs = source_dirs()
        etcd, why = self._etcd(dirs)
        sources = sorted(glob.glob(os.path.join(dirs["src"], "*.c")))
        claim = [os.path.join(dirs["claim"], c) for c in CLAIM_LOCAL + (CLAIM_ETCD if etcd else [])]
        macros = [
            ("TOID_HOST_REGISTRY", '"%s"' % os.environ.get("TOID_HOST_REGISTRY", "/var/lib/toid/claims")),
            ("TOID_HOST_REGISTRY_GROUP", '"%s"' % os.environ.get("TOID_HOST_REGISTRY_GROUP", "toid")),
        ]
        if etcd:
            macros.append(("TOID_CLAIM_HAVE_ETCD", None))
            ext.libraries = list(ext.libraries) + ["jansson", "dl"]
        else:
            macros.append(("TOID_CLAIM_ETCD_MISSING", '"%s"' % why.replace('"', "'")))
        # CMake's flags for the library (Release: -O3; C11, no extensions;
        # hidden visibility: the API's symbols are hidden again at the link)
        cflags = ["-std=c11", "-O3", "-fvisibility=hidden"] + WARNINGS + (["-Werror"] if WERROR else [])
        headers = (glob.glob(os.path.join(dirs["src"], "*.h")) + glob.glob(os.path.join(dirs["claim"], "*.h"))
                   + [os.path.join(dirs["include"], "toid.h")])
        out = os.path.join(self.build_temp, "libtoid")

        def compile_one(path):
            return self.compiler.compile([path], output_dir=out, macros=macros,
                                         include_dirs=[dirs["include"], dirs["src"], dirs["claim"]],
                                         extra_postargs=cflags, depends=headers)[0]

        # (the compiler is only called, one process per source: threads are enough)
        jobs = self.parallel if isinstance(self.parallel, int) and self.parallel > 0 else (os.cpu_count() or 1)
        os.makedirs(out, exist_ok=True)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            objects = list(pool.map(compile_one, sources + claim))
        archive = self.compiler.library_filename("toid_bundled", output_dir=out)
        if os.path.exists(archive):
            os.remove(archive)
        self.compiler.create_static_lib(objects, "toid_bundled", output_dir=out)
        ext.extra_objects = [archive] + list(ext.extra_objects)
        ext.include_dirs = [dirs["include"], dirs["claim"], dirs["common"]] + list(ext.include_dirs)
        ext.depends = list(ext.depends) + sources + claim + headers   # (relinked when they change)


class sdist(_sdist):
    """An sdist that builds anywhere: libtoid's sources and the bindings'
    common headers go into _libtoid/, the project's LICENSE beside setup.py."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        dest = os.path.join(base_dir, "_libtoid")
        if os.path.isdir(dest):          # an sdist made from an sdist: there already
            return
        dirs = source_dirs()
        for key, patterns in (("src", ["*.c", "*.h"]), ("include", ["toid.h"]),
                              ("claim", ["*.c", "*.h"]), ("common", ["*.h"])):
            os.makedirs(os.path.join(dest, key))
            for pattern in patterns:
                for path in sorted(glob.glob(os.path.join(dirs[key], pattern))):
                    shutil.copy2(path, os.path.join(dest, key))
        lic = os.path.join(CHECKOUT, "LICENSE")
        if os.path.isfile(lic) and not os.path.exists(os.path.join(base_dir, "LICENSE")):
            shutil.copy2(lic, os.path.join(base_dir, "LICENSE"))


PREBUILT = os.environ.get("TOID_STATIC_LIB")
module = dict(sources=["toid/_toid.c"],
              extra_compile_args=["-std=c11"] + WARNINGS + ["-fvisibility=hidden"]
              + (["-Werror"] if WERROR else []),
              extra_link_args=LINK)
if PREBUILT:
    include_dir = os.environ.get("TOID_INCLUDE_DIR", os.path.join(CHECKOUT, "include"))
    claim_include = os.environ.get("TOID_CLAIM_INCLUDE_DIR", os.path.join(CHECKOUT, "claim"))
    claim_lib = os.environ.get("TOID_CLAIM_STATIC_LIB",
                               os.path.join(CHECKOUT, "build", "claim", "libtoid_claim.a"))
    claim_libs = [x for x in os.environ.get("TOID_CLAIM_LIBS", "").split(":") if x]
    for lib, var in ((PREBUILT, "TOID_STATIC_LIB"), (claim_lib, "TOID_CLAIM_STATIC_LIB")):
        if not os.path.exists(lib):
            raise SystemExit(f"setup.py: {lib} ({var}) not found")
    module.update(
        include_dirs=[include_dir, claim_include, os.path.join(HERE, "..", "common")],
        # the claim library first: it uses libtoid
        extra_objects=[claim_lib, PREBUILT] + [x for x in claim_libs if "/" in x],
        libraries=[x for x in claim_libs if "/" not in x])

setup(
    ext_modules=[Extension("toid._toid", **module)],
    cmdclass={"build_ext": build_ext, "sdist": sdist},
)

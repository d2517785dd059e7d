# node-gyp build of the addon over libtoid and the claim library (node
# claims), both linked in statically and kept private (--exclude-libs).
#   toid_include     the directory of toid.h      (default: the checkout's include/)
#   toid_common      bindings/common, the bindings' shared header (default: ../common)
#   toid_static_lib  libtoid.a from the CMake build (default: the checkout's build/)
#   toid_claim_include     the directory of toid_claim.h (default: the checkout's claim/)
#   toid_claim_static_lib  libtoid_claim.a (default: the checkout's build/claim/)
# and from the environment, as the Python binding's setup.py takes it:
#   TOID_CLAIM_LIBS  what the claim library needs beside it, ':'-separated
#                    paths or names (with etcd built in: libjansson.so:dl;
#                    the CMake build sets it)
# e.g. npx node-gyp rebuild --nodedir=/usr -- -Dtoid_static_lib=/path/to/libtoid.a \
#        -Dtoid_claim_static_lib=/path/to/libtoid_claim.a
{
  "variables": {
    "toid_include%": "<(module_root_dir)/../../include",
    "toid_common%": "<(module_root_dir)/../common",
    "toid_static_lib%": "<(module_root_dir)/../../build/libtoid.a",
    "toid_claim_include%": "<(module_root_dir)/../../claim",
    "toid_claim_static_lib%": "<(module_root_dir)/../../build/claim/libtoid_claim.a",
    "toid_werror%": "0"
  },
  "targets": [
    {
      "target_name": "toid",
      "sources": ["src/toid_node.c"],
      "include_dirs": ["<(toid_include)", "<(toid_claim_include)", "<(toid_common)"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-Wshadow", "-Wstrict-prototypes",
                 "-Wmissing-prototypes", "-fvisibility=hidden"],
      "conditions": [["toid_werror==1", { "cflags": ["-Werror"] }]],
      "libraries": ["<(toid_claim_static_lib)", "<(toid_static_lib)",
                    "<!@(node -e \"for (const x of (process.env.TOID_CLAIM_LIBS || '').split(':')) if (x) console.log(x.includes('/') ? x : '-l' + x)\")",
                    "-pthread", "-Wl,--exclude-libs,ALL"]
    }
  ]
}

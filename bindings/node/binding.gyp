# node-gyp build of the addon. Two ways to have libtoid and the claim
# library (node claims), both linked in statically and kept private
# (--exclude-libs):
# - by default (npm install of the package, or of bindings/node in a
#   checkout) from their C sources: the package's copy in libtoid/ (npm
#   pack puts it there), else the checkout's; scripts/libtoid.js lists them
#   and decides on the etcd claim backend (built in when jansson's and
#   libcurl's headers are found; TOID_ETCD=0|1 in the environment to say).
# - the CMake build passes the static libraries it built:
#   toid_static_lib        libtoid.a (its presence selects this way)
#   toid_claim_static_lib  libtoid_claim.a
#   toid_include, toid_claim_include, toid_common   the headers' directories
#   and, from the environment, TOID_CLAIM_LIBS: what the claim library needs
#   beside it, ':'-separated paths or names (with etcd built in:
#   libjansson.so:dl), e.g.
#   npx node-gyp rebuild --nodedir=/usr -- -Dtoid_static_lib=/path/to/libtoid.a \
#        -Dtoid_claim_static_lib=/path/to/libtoid_claim.a -Dtoid_include=... ...
{
  "variables": {
    "toid_static_lib%": "",
    "toid_werror%": "0",
    "toid_cflags": ["-std=c11", "-Wall", "-Wextra", "-Wshadow", "-Wstrict-prototypes",
                    "-Wmissing-prototypes", "-fvisibility=hidden"]
  },
  "conditions": [
    ["toid_static_lib==''", {
      "targets": [
        {
          # libtoid and the claim library from their sources (CMake's flags:
          # C11, hidden visibility, position-independent; -O3 from Release)
          "target_name": "toid_bundled",
          "type": "static_library",
          "sources": ["<!@(node scripts/libtoid.js sources)"],
          "include_dirs": ["<!(node scripts/libtoid.js dir include)", "<!(node scripts/libtoid.js dir src)",
                           "<!(node scripts/libtoid.js dir claim)"],
          "defines": ["<!@(node scripts/libtoid.js host-registry)"],
          "cflags": ["<@(toid_cflags)", "-fPIC"],
          "conditions": [
            ["toid_werror==1", { "cflags": ["-Werror"] }],
            ["<!(node scripts/libtoid.js etcd)==1",
              { "defines": ["TOID_CLAIM_HAVE_ETCD"] },
              { "defines": ["<!(node scripts/libtoid.js etcd-missing)"] }]
          ]
        },
        {
          "target_name": "toid",
          "dependencies": ["toid_bundled"],
          "sources": ["src/toid_node.c"],
          "include_dirs": ["<!(node scripts/libtoid.js dir include)", "<!(node scripts/libtoid.js dir claim)",
                           "<!(node scripts/libtoid.js dir common)"],
          "cflags": ["<@(toid_cflags)"],
          "ldflags": ["-pthread", "-Wl,--exclude-libs,ALL"],
          "conditions": [
            ["toid_werror==1", { "cflags": ["-Werror"] }],
            ["<!(node scripts/libtoid.js etcd)==1", { "libraries": ["-ljansson", "-ldl"] }]
          ]
        }
      ]
    }, {
      "variables": {
        "toid_include%": "<(module_root_dir)/../../include",
        "toid_common%": "<(module_root_dir)/../common",
        "toid_claim_include%": "<(module_root_dir)/../../claim",
        "toid_claim_static_lib%": "<(module_root_dir)/../../build/claim/libtoid_claim.a"
      },
      "targets": [
        {
          "target_name": "toid",
          "sources": ["src/toid_node.c"],
          "include_dirs": ["<(toid_include)", "<(toid_claim_include)", "<(toid_common)"],
          "cflags": ["<@(toid_cflags)"],
          "conditions": [["toid_werror==1", { "cflags": ["-Werror"] }]],
          "libraries": ["<(toid_claim_static_lib)", "<(toid_static_lib)",
                        "<!@(node -e \"for (const x of (process.env.TOID_CLAIM_LIBS || '').split(':')) if (x) console.log(x.includes('/') ? x : '-l' + x)\")",
                        "-pthread", "-Wl,--exclude-libs,ALL"]
        }
      ]
    }]
  ]
}

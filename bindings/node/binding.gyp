# node-gyp build of the addon over libtoid, linked in statically.
#   toid_include     the directory of toid.h      (default: the checkout's include/)
#   toid_common      bindings/common, the bindings' shared header (default: ../common)
#   toid_static_lib  libtoid.a from the CMake build (default: the checkout's build/)
# e.g. npx node-gyp rebuild --nodedir=/usr -- -Dtoid_static_lib=/path/to/libtoid.a
{
  "variables": {
    "toid_include%": "<(module_root_dir)/../../include",
    "toid_common%": "<(module_root_dir)/../common",
    "toid_static_lib%": "<(module_root_dir)/../../build/libtoid.a",
    "toid_werror%": "0"
  },
  "targets": [
    {
      "target_name": "toid",
      "sources": ["src/toid_node.c"],
      "include_dirs": ["<(toid_include)", "<(toid_common)"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-Wshadow", "-Wstrict-prototypes",
                 "-Wmissing-prototypes", "-fvisibility=hidden"],
      "conditions": [["toid_werror==1", { "cflags": ["-Werror"] }]],
      "libraries": ["<(toid_static_lib)", "-pthread", "-Wl,--exclude-libs,ALL"]
    }
  ]
}

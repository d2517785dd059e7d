# embed.cmake — turns the page's files into a C source of byte arrays, so
# that toidd serves them from its own binary (no files to install, works
# offline). Run by the build:
#   cmake -DOUT=page_assets.c -DNAMES="a;b" -DFILES="/x/a;/x/b" -P embed.cmake
# For each NAME: const unsigned char NAME[] (the bytes and a NUL, not
# counted) and const size_t NAME_len.
set(src "/* generated from server/page/ by embed.cmake: do not edit */\n#include <stddef.h>\n")
list(LENGTH NAMES count)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  list(GET NAMES ${i} name)
  list(GET FILES ${i} file)
  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" hexlen)
  math(EXPR len "${hexlen} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "((0x..,){16})" "\\1\n" bytes "${bytes}")
  string(APPEND src "extern const unsigned char ${name}[];\nextern const size_t ${name}_len;\n"
         "const unsigned char ${name}[] = {\n${bytes}0x00};\nconst size_t ${name}_len = ${len};\n")
endforeach()
file(WRITE "${OUT}.tmp" "${src}")
file(RENAME "${OUT}.tmp" "${OUT}")

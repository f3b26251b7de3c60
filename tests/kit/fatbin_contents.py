#!/usr/bin/env python3
"""Lists what the CUDA fat binary of an ELF file holds, one line per image:

    elf sm_80
    elf sm_90
    ptx compute_90

for the checks of the student kit's prebuilt reference plugin, on machines
whose toolkit has no cuobjdump. Reads the .nv_fatbin section: a sequence of
fat binaries (magic 0xBA55ED50, a 16-byte header, then entries); each entry
starts with its kind (1 PTX, 2 ELF), its header size, its size and, at byte
28, the architecture number.

    fatbin_contents.py LIBRARY.so
"""

import struct
import sys

FATBIN_MAGIC = 0xBA55ED50
KINDS = {1: "ptx", 2: "elf"}


def section(data, wanted):
    """The bytes of the ELF64 little-endian section named `wanted`."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_offset = headers[shstrndx][4]
    for header in headers:
        name_start = names_offset + header[0]
        name = data[name_start:data.index(b"\0", name_start)].decode()
        if name == wanted:
            offset, size = header[4], header[5]
            return data[offset:offset + size]
    return None


def images(fatbin):
    """(kind, arch) of every entry of every fat binary in the section."""
    position = 0
    while position + 16 <= len(fatbin):
        magic, _version, header_size, fat_size = struct.unpack_from("<IHHQ", fatbin, position)
        if magic != FATBIN_MAGIC:
            raise ValueError(f"no fat binary header at offset {position}")
        entry = position + header_size
        end = entry + fat_size
        while entry < end:
            kind, _unknown, entry_header_size, entry_size = struct.unpack_from("<HHIQ", fatbin, entry)
            arch, = struct.unpack_from("<I", fatbin, entry + 28)
            yield KINDS.get(kind, f"kind{kind}"), arch
            entry += entry_header_size + entry_size
        position = end


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    fatbin = section(data, ".nv_fatbin")
    if fatbin is None:
        sys.exit(f"{sys.argv[1]}: no .nv_fatbin section")
    for kind, arch in sorted(set(images(fatbin))):
        print(f"{kind} {'compute' if kind == 'ptx' else 'sm'}_{arch}")


if __name__ == "__main__":
    main()

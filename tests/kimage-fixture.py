#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Wraps test payloads the way the kernel's build does (tests/images.sh).

  kimage-fixture.py size-append UNCOMPRESSED COMPRESSED OUT
      COMPRESSED followed by the le32 size of UNCOMPRESSED (the build's
      size_append, after every stream but gzip's)
  kimage-fixture.py bzimage PAYLOAD OUT
      a minimal x86 bzImage: boot sector and setup header (boot protocol
      2.15, one setup sector), 256 bytes standing in for the decompressor,
      PAYLOAD at payload_offset with payload_length, 512 bytes after it
  kimage-fixture.py arm64 BTF DECOY OUT [GAP TAIL [LATE]]
      a raw arm64 Image: the 64-byte header ("ARM\\x64" at 56), code-like
      bytes, DECOY (a smaller BTF blob, as the BPF programs a kernel embeds),
      GAP more bytes (default 1001), BTF 4-aligned, TAIL bytes with no BTF
      magic in them (default 0), then LATE (another BTF blob) if given,
      and zeroes (the BSS)
  kimage-fixture.py zboot COMP PAYLOAD OUT
      an EFI zboot image: "MZ", "zimg", payload offset and size (without the
      appended size, except for gzip, which has none), the compression's
      name as the kernel's build writes it (gzip, lzma, xzkern, zstd22, ...)
"""
import struct
import sys


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def filler(n, seed):
    # deterministic bytes that hold no BTF magic (0x9f never appears)
    return bytes(((i * 131 + seed) % 0x9e) for i in range(n))


def size_append(args):
    plain, packed, out = args
    write(out, read(packed) + struct.pack("<I", len(read(plain))))


def bzimage(args):
    payload_path, out = args
    payload = read(payload_path)
    setup = bytearray(1024)               # boot sector + 1 setup sector
    setup[0x1f1] = 1                      # setup_sects
    setup[0x1fe:0x200] = b"\x55\xaa"
    setup[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", setup, 0x206, 0x020f)
    struct.pack_into("<II", setup, 0x248, 256, len(payload))
    write(out, bytes(setup) + filler(256, 1) + payload + filler(512, 2))


def arm64(args):
    btf_path, decoy_path, out = args[:3]
    gap, tail = (int(args[3]), int(args[4])) if len(args) > 3 else (1001, 0)
    late = read(args[5]) if len(args) > 5 else b""
    btf, decoy = read(btf_path), read(decoy_path)
    head = bytearray(64)
    struct.pack_into("<IIQQQ", head, 0, 0x14000010, 0, 0, 0, 0xa)
    head[56:60] = b"ARM\x64"
    body = bytes(head) + filler(4000, 3) + decoy + filler(gap, 4)
    body += b"\0" * (-len(body) % 4)
    body += btf + filler(tail, 6)
    if late:
        body += b"\0" * (-len(body) % 4) + late
    write(out, body + b"\0" * 3000)


def zboot(args):
    comp, payload_path, out = args
    payload = read(payload_path)
    size = len(payload) - (0 if comp == "gzip" else 4)
    head = bytearray(0x1000)
    head[0:2] = b"MZ"
    head[4:8] = b"zimg"
    struct.pack_into("<II", head, 8, len(head), size)
    head[24:24 + len(comp)] = comp.encode()
    head[0x38:0x3c] = b"\xcd\x23\x82\x81"   # LINUX_PE_MAGIC
    write(out, bytes(head) + payload + filler(300, 5))


def main():
    cmds = {"size-append": size_append, "bzimage": bzimage, "arm64": arm64,
            "zboot": zboot}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()

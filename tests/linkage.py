#!/usr/bin/env python3
"""What runs on compute nodes links no C++ runtime and no fmt: reads the
NEEDED entries of karte-collect and the region library's shared objects
(readelf -d) and fails on libstdc++, libc++, libfmt or libgcc_s among them.

usage: tests/linkage.py FILE...     prints 'linkage: N files, K refused'"""
import re
import subprocess
import sys

REFUSED = re.compile(r"^lib(stdc\+\+|c\+\+|c\+\+abi|fmt|gcc_s)\.so")


def needed(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def main(paths):
    refused = 0
    for p in paths:
        libs = needed(p)
        if not libs:
            print(f"FAIL {p}: no NEEDED entries read (not a dynamic ELF file?)")
            refused += 1
        for lib in libs:
            if REFUSED.match(lib):
                print(f"FAIL {p} needs {lib}")
                refused += 1
        print(f"    {p}: {' '.join(libs)}")
    print(f"linkage: {len(paths)} files, {refused} refused")
    return 1 if refused or not paths else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

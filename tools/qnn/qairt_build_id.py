#!/usr/bin/env python3
"""Prints the build id of a QNN HTP library: "QAIRT_BUILD_ID=v2.51.0.251020135409_130297".

Standard library only: it runs once in the `qnn_sdk` repository rule, with the
host's python3. The id comes from the library itself (QnnBackend_getBuildId
through its interface table), so the version is read, not guessed from a
folder or wheel name. The library prints banners of its own to stdout, so the
id carries a marker (see private/build_id.bzl, which parses it).
"""

from __future__ import annotations

import ctypes
import os
import sys

# QnnInterface_t: five header words (backend id, provider name, API version),
# then the function table; backendGetBuildId is its fifth entry.
_HEADER_WORDS = 5
_SLOT_BACKEND_GET_BUILD_ID = 4


def build_id(library_path: str) -> str:
    library = ctypes.CDLL(library_path)
    providers = ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p))()
    count = ctypes.c_uint32()
    if library.QnnInterface_getProviders(ctypes.byref(providers), ctypes.byref(count)) != 0 or count.value < 1:
        raise SystemExit(f"{library_path}: QnnInterface_getProviders returned no provider")
    table = providers[0]
    get_build_id = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.POINTER(ctypes.c_char_p))(
        table[_HEADER_WORDS + _SLOT_BACKEND_GET_BUILD_ID]
    )
    value = ctypes.c_char_p()
    if get_build_id(ctypes.byref(value)) != 0 or not value.value:
        raise SystemExit(f"{library_path}: QnnBackend_getBuildId failed")
    return value.value.decode()


if __name__ == "__main__":
    sys.stdout.write(f"QAIRT_BUILD_ID={build_id(sys.argv[1])}\n")
    sys.stdout.flush()
    # The id is written; the library's teardown at exit has nothing to add and
    # has been seen to print more, so skip it.
    os._exit(0)

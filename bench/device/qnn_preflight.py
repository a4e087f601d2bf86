"""Checks that a phone can run a QNN program before anything is pushed.

The most common field failure of Qualcomm NPU programs is a QAIRT version
mismatch: the context binary inside the .pte was compiled by one QAIRT
release, and the phone's libQnnHtp.so is another, so it fails deep in the
DSP with an opaque error code. The second is a program compiled for another
SoC's HTP. Both are checked here against the program's manifest (written by
tools/executorch/export_qnn.py), with errors that say what to rebuild.
"""

from __future__ import annotations

import os
import re

# QAIRT stamps its build id, e.g. v2.51.0.260929181845, into every library.
BUILD_ID = re.compile(rb"v2\.\d+\.\d+\.\d{6,}")
BACKEND_LIBRARY = "libqnn_executorch_backend.so"


class QnnPreflightError(Exception):
    """The phone or the libraries cannot run this program; the message says what to do."""


def required_libraries(htp_arch: str) -> list[str]:
    """The QAIRT Android files a program for `htp_arch` (e.g. V75) needs beside the runner."""
    return [
        "libQnnHtp.so",
        "libQnnSystem.so",
        f"libQnnHtp{htp_arch}Stub.so",
        f"libQnnHtp{htp_arch}Skel.so",
        BACKEND_LIBRARY,
    ]


def library_build_ids(path: str) -> list[str]:
    with open(path, "rb") as f:
        return sorted({m.decode() for m in BUILD_ID.findall(f.read())})


def check(manifest: dict, phone_soc: str, libraries: list[str]) -> None:
    """Raises QnnPreflightError unless `libraries` on a `phone_soc` phone can run the manifest's program."""
    qnn = manifest.get("qnn")
    if not qnn:
        raise QnnPreflightError(f"{manifest.get('pte')} has no qnn section: it is not a QNN program")
    program = manifest.get("pte", "the program")
    if phone_soc and phone_soc != qnn["soc"]:
        raise QnnPreflightError(
            f"{program} is compiled for {qnn['soc']} (HTP {qnn['htpArch']}) but the phone is {phone_soc}: "
            f'build the program with soc = "{phone_soc}" (e.g. //models:llama_int4_qnn_sm8750 for SM8750)'
        )
    by_name = {os.path.basename(path): path for path in libraries}
    missing = [name for name in required_libraries(qnn["htpArch"]) if name not in by_name]
    if missing:
        raise QnnPreflightError(
            f"--qnn_libs lacks {', '.join(missing)}: build them from your QAIRT SDK with "
            f"`bazel build --repo_env=QNN_SDK_ROOT=... //tools/qnn:android_runtime_{qnn['soc'].lower()}` and pass "
            f'them with ExecuTorch\'s Android {BACKEND_LIBRARY} (README "Qualcomm NPU")'
        )
    found = library_build_ids(by_name["libQnnHtp.so"])
    if qnn["qairtBuildId"] not in found:
        raise QnnPreflightError(
            f"QAIRT mismatch: {program} was compiled by QAIRT {qnn['qairtBuildId']} but --qnn_libs' libQnnHtp.so "
            f"is {', '.join(found) or 'of unknown version'}: push the Android libraries of the SDK that compiled "
            f"the program, or rebuild the program with --repo_env=QNN_SDK_ROOT pointing at that SDK"
        )

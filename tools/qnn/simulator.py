"""Runs QNN programs on this host through the HTP simulator in libQnnHtp.so.

ExecuTorch's x86 QNN backend dlopen()s libQnnHtp.so and libQnnSystem.so by
name, and the dynamic loader reads LD_LIBRARY_PATH only when a process starts.
So a process that wants to run a QNN .pte calls `ensure_environment()` first:
if QNN_SDK_ROOT and LD_LIBRARY_PATH do not yet point at //tools/qnn:sdk in
its runfiles, it re-executes itself with them set.
"""

from __future__ import annotations

import os
import sys

from tools.python.runfile import runfile

SDK = "tools/qnn/sdk"


def sdk_environment() -> dict[str, str]:
    """QNN_SDK_ROOT and LD_LIBRARY_PATH for a process that runs QNN programs."""
    root = runfile(SDK)
    library_dir = os.path.join(root, "lib", "x86_64-linux-clang")
    if not os.path.exists(os.path.join(library_dir, "libQnnHtp.so")):
        raise FileNotFoundError(f"{library_dir} has no libQnnHtp.so: add //tools/qnn:sdk to the target's data")
    return {"QNN_SDK_ROOT": root, "LD_LIBRARY_PATH": library_dir}


def ensure_environment() -> None:
    """Re-executes this Python process with the QNN SDK on its library path, once."""
    wanted = sdk_environment()
    if os.environ.get("LD_LIBRARY_PATH", "").split(":")[0] == wanted["LD_LIBRARY_PATH"]:
        return
    env = dict(os.environ)
    env["QNN_SDK_ROOT"] = wanted["QNN_SDK_ROOT"]
    env["LD_LIBRARY_PATH"] = ":".join(p for p in (wanted["LD_LIBRARY_PATH"], env.get("LD_LIBRARY_PATH")) if p)
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, *sys.argv], env)

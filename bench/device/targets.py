"""Where a benchmark runs: an attached phone (through adb) or this host.

Both offer the same operations, so the bench loop does not care which:
prepare a delegate (the QNN backend and its libraries), install the runner
and model files, run the runner and return its stats JSON, and read thermal
zones and CPU frequencies around each run.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import platform
import shlex

from bench.device import qnn_preflight
from bench.device.adb import Adb, AdbError
from bench.device.plan import Variant
from runtime.llm_main_process import run_with_stats

PHONE_DIR = "/data/local/tmp/llm_ondevice"


def sha256_file(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _celsius(raw: str) -> float:
    value = float(raw)
    return value / 1000.0 if value > 1000 else value  # most zones report m°C


class HostTarget:
    """This machine, with the host build of the runner."""

    kind = "host"
    name = "host"

    def __init__(self, runner: str, qnn_backend: str = "") -> None:
        self.runner = runner
        self.qnn_backend = qnn_backend  # ExecuTorch's x86-64 QNN backend library

    def environment(self) -> dict:
        cpu = ""
        if os.path.exists("/proc/cpuinfo"):
            with open("/proc/cpuinfo") as f:
                cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
        return {
            "kind": "host",
            "device": f"host {platform.machine()}",
            "soc": cpu,
            "os": f"{platform.system()} {platform.release()}",
            "cores": os.cpu_count() or 1,
        }

    def cpu_count(self) -> int:
        return os.cpu_count() or 1

    def prepare_delegate(self, variant: Variant, manifest: dict) -> tuple[list[str], dict[str, str]]:
        """Runner flags and environment for the variant's delegate: on a host, QNN means the HTP simulator."""
        if variant.delegate != "qnn":
            return [], {}
        from tools.qnn import simulator

        if not self.qnn_backend or not os.path.exists(self.qnn_backend):
            raise qnn_preflight.QnnPreflightError(
                f"ExecuTorch's x86-64 QNN backend ({self.qnn_backend or 'unset'}) is missing: "
                "add //runtime:host_qnn_backend to the data of //bench:device"
            )
        return [f"--backend_library={self.qnn_backend}"], simulator.sdk_environment()

    def install(self, files: list[str]) -> dict[str, str]:
        return {f: f for f in files}

    def run(self, args: list[str], timeout: float, env: dict[str, str] | None = None) -> dict:
        return run_with_stats([self.runner, *args], timeout, env)[1]

    def thermal(self) -> dict[str, float]:
        zones = {}
        for zone in sorted(glob.glob("/sys/class/thermal/thermal_zone*")):
            try:
                with open(f"{zone}/type") as f:
                    kind = f.read().strip()
                with open(f"{zone}/temp") as f:
                    zones[f"{os.path.basename(zone)}:{kind}"] = _celsius(f.read().strip())
            except (OSError, ValueError):
                continue
        return zones

    def cpu_freqs_mhz(self) -> list[float]:
        if not os.path.exists("/proc/cpuinfo"):
            return []
        with open("/proc/cpuinfo") as f:
            return [float(line.split(":", 1)[1]) for line in f if line.startswith("cpu MHz")]


class PhoneTarget:
    """A phone over adb, running the pushed android-arm64 runner."""

    kind = "phone"

    def __init__(self, adb: Adb, runner: str, libraries: list[str], qnn_libraries: list[str] = ()) -> None:
        self.adb = adb
        self.name = adb.serial
        self.runner = runner
        self.libraries = libraries
        self.qnn_libraries = list(qnn_libraries)  # QAIRT Android libraries + ExecuTorch's QNN backend
        self.remote_runner = f"{PHONE_DIR}/llm_main"

    def environment(self) -> dict:
        return {
            "kind": "phone",
            "serial": self.adb.serial,
            "device": f"{self.adb.getprop('ro.product.manufacturer')} {self.adb.getprop('ro.product.model')}".strip(),
            "soc": self.adb.getprop("ro.soc.model"),
            "os": f"Android {self.adb.getprop('ro.build.version.release')} (SDK {self.adb.getprop('ro.build.version.sdk')})",
            "cores": self.cpu_count(),
        }

    def cpu_count(self) -> int:
        return int(self.adb.shell("nproc").strip() or 1)

    def _push_checked(self, local: str, remote: str) -> None:
        self.adb.push(local, remote)
        remote_sum = self.adb.shell(f"sha256sum {shlex.quote(remote)}").split()[0]
        if remote_sum != sha256_file(local):
            raise AdbError(
                f"{self.name}: {remote} on the phone does not match {local} after push "
                "(storage full or a stale copy?); free space in /data/local/tmp and run again"
            )

    def prepare_delegate(self, variant: Variant, manifest: dict) -> tuple[list[str], dict[str, str]]:
        """Checks the phone and --qnn_libs against the program, then pushes the libraries (QNN only)."""
        if variant.delegate != "qnn":
            return [], {}
        qnn_preflight.check(manifest, self.adb.getprop("ro.soc.model"), self.qnn_libraries)
        self.adb.shell(f"mkdir -p {PHONE_DIR}")
        for library in self.qnn_libraries:
            self._push_checked(library, f"{PHONE_DIR}/{os.path.basename(library)}")
        # The HTP stub on the CPU side loads its DSP half (the skel) from here.
        dsp_path = f"{PHONE_DIR};/vendor/lib/rfsa/adsp;/vendor/dsp/cdsp;/system/lib/rfsa/adsp;/dsp"
        return [f"--backend_library={PHONE_DIR}/{qnn_preflight.BACKEND_LIBRARY}"], {"ADSP_LIBRARY_PATH": dsp_path}

    def install(self, files: list[str]) -> dict[str, str]:
        """Pushes the runner, its libraries and `files`; returns local -> phone paths."""
        self.adb.shell(f"mkdir -p {PHONE_DIR}")
        self._push_checked(self.runner, self.remote_runner)
        for library in self.libraries:
            self._push_checked(library, f"{PHONE_DIR}/{os.path.basename(library)}")
        mapping = {}
        for local in files:
            remote = f"{PHONE_DIR}/{os.path.basename(local)}"
            self._push_checked(local, remote)
            mapping[local] = remote
        return mapping

    def run(self, args: list[str], timeout: float, env: dict[str, str] | None = None) -> dict:
        stats = f"{PHONE_DIR}/stats.json"
        command = " ".join(shlex.quote(a) for a in [*args, f"--stats_json={stats}"])
        variables = "".join(f"{name}={shlex.quote(value)} " for name, value in (env or {}).items())
        self.adb.shell(
            f"cd {PHONE_DIR} && LD_LIBRARY_PATH={PHONE_DIR} {variables}./llm_main {command} > /dev/null", timeout
        )
        return json.loads(self.adb.shell(f"cat {stats}"))

    def thermal(self) -> dict[str, float]:
        types = self.adb.shell("cat /sys/class/thermal/thermal_zone*/type").split()
        temps = self.adb.shell("cat /sys/class/thermal/thermal_zone*/temp").split()
        zones = {}
        for index, (kind, temp) in enumerate(zip(types, temps, strict=False)):
            try:
                zones[f"thermal_zone{index}:{kind}"] = _celsius(temp)
            except ValueError:
                continue
        return zones

    def cpu_freqs_mhz(self) -> list[float]:
        raw = self.adb.shell("cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_cur_freq").split()
        return [int(v) / 1000.0 for v in raw if v.isdigit()]

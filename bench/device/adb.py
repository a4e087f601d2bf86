"""A small client for the adb commands //bench:device needs.

Every call goes through the `adb` executable (the real one, or the emulated
phone of fake_adb.py in tests). A device that goes away mid-run raises
DeviceLost, so the bench can keep what it measured and report the rest as
failed instead of crashing.
"""

from __future__ import annotations

import shlex
import subprocess

# What adb prints when the device is gone (unplugged, rebooted, offline).
_LOST_MARKERS = ("not found", "no devices", "device offline", "device unauthorized", "closed")


class AdbError(Exception):
    """adb itself failed; the message says what and how to fix it."""


class DeviceLost(AdbError):
    """The device disconnected or stopped answering."""


def list_devices(adb: str) -> list[str]:
    """Serials of attached devices in the `device` state."""
    try:
        result = subprocess.run([adb, "devices"], capture_output=True, text=True, timeout=30)
    except FileNotFoundError as e:
        raise AdbError(f"{adb} not found: install adb (Debian: apt-get install adb) or pass --adb") from e
    serials = []
    for line in result.stdout.splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 2 and fields[1] == "device":
            serials.append(fields[0])
    return serials


class Adb:
    def __init__(self, adb: str, serial: str) -> None:
        self.adb = adb
        self.serial = serial

    def _run(self, args: list[str], timeout: float) -> subprocess.CompletedProcess:
        try:
            result = subprocess.run(
                [self.adb, "-s", self.serial, *args], capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired as e:
            raise DeviceLost(f"{self.serial}: adb {args[0]} timed out after {timeout:.0f} s") from e
        if result.returncode != 0 and any(m in result.stderr for m in _LOST_MARKERS):
            raise DeviceLost(f"{self.serial}: {result.stderr.strip()}")
        return result

    def shell(self, command: str, timeout: float = 600) -> str:
        result = self._run(["shell", command], timeout)
        if result.returncode != 0:
            raise AdbError(f"{self.serial}: `{command}` exited {result.returncode}: {result.stderr.strip()[-2000:]}")
        return result.stdout

    def push(self, local: str, remote: str) -> None:
        result = self._run(["push", local, remote], timeout=600)
        if result.returncode != 0:
            raise AdbError(f"{self.serial}: push {local} -> {remote} failed: {result.stderr.strip()}")

    def pull(self, remote: str, local: str) -> None:
        result = self._run(["pull", remote, local], timeout=120)
        if result.returncode != 0:
            raise AdbError(f"{self.serial}: pull {remote} failed: {result.stderr.strip()}")

    def getprop(self, name: str) -> str:
        return self.shell(f"getprop {shlex.quote(name)}").strip()

"""An emulated phone behind an `adb` command line, for tests.

Answers the adb commands //bench:device uses, the way adb does:

    adb devices
    adb -s SERIAL push LOCAL REMOTE | pull REMOTE LOCAL
    adb -s SERIAL shell COMMAND     (getprop, cat, mkdir -p, rm -rf, nproc, sha256sum,
                                     cd DIR && [VAR=value] ./program ARGS)

The device's file system is a folder ($FAKE_ADB_HOME/root). Programs run on
it are linux-arm64 binaries executed under qemu-aarch64, so a test exercises
the real arm64 runner, not a stand-in. /sys/class/thermal holds a zone that
heats up with every program run and cools with time, like a phone's SoC.
$FAKE_ADB_HOME/props.json overrides getprop values (a test's choice of SoC).
Writing a number N to $FAKE_ADB_HOME/disconnect_after makes the phone vanish
after its N-th program run: every later command fails as adb does when a
device is unplugged.
"""

from __future__ import annotations

import glob
import hashlib
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import time

SERIAL = "emulator-arm64-qemu"
QEMU = "/usr/bin/qemu-aarch64-static"
ARM64_SYSROOT = "/usr/aarch64-linux-gnu"
PROPS = {
    "ro.product.model": "qemu-arm64 (emulated phone)",
    "ro.product.manufacturer": "llm-ondevice",
    "ro.soc.model": "emulated-aarch64",
    "ro.build.version.release": "14",
    "ro.build.version.sdk": "34",
}
AMBIENT_MC = 35000  # thermal zones report millidegrees Celsius
HEAT_PER_RUN_MC = 4000
COOLING_SECONDS = 20.0


def home() -> str:
    path = os.environ.get("FAKE_ADB_HOME")
    if not path:
        sys.exit("fake adb: set FAKE_ADB_HOME to the emulated phone's folder")
    os.makedirs(os.path.join(path, "root", "data", "local", "tmp"), exist_ok=True)
    return path


def device_props() -> dict[str, str]:
    """PROPS, with any overrides a test wrote to $FAKE_ADB_HOME/props.json (e.g. another SoC)."""
    props = dict(PROPS)
    try:
        with open(os.path.join(home(), "props.json")) as f:
            props.update(json.load(f))
    except FileNotFoundError:
        pass
    return props


def state_path() -> str:
    return os.path.join(home(), "state.json")


def load_state() -> dict:
    try:
        with open(state_path()) as f:
            return json.load(f)
    except FileNotFoundError:
        return {"runs": 0, "heat_mc": 0.0, "heat_time": time.time()}


def save_state(state: dict) -> None:
    with open(state_path(), "w") as f:
        json.dump(state, f)


def temperature_mc(state: dict) -> int:
    elapsed = time.time() - state["heat_time"]
    return int(AMBIENT_MC + state["heat_mc"] * math.exp(-elapsed / COOLING_SECONDS))


def disconnected(state: dict) -> bool:
    try:
        with open(os.path.join(home(), "disconnect_after")) as f:
            return state["runs"] >= int(f.read().strip())
    except FileNotFoundError:
        return False


def device_path(path: str, cwd: str = "/") -> str:
    """Host path of a device path."""
    absolute = os.path.normpath(os.path.join(cwd, path))
    return os.path.join(home(), "root", absolute.lstrip("/"))


def write_thermal(state: dict) -> None:
    zone = device_path("/sys/class/thermal/thermal_zone0")
    os.makedirs(zone, exist_ok=True)
    with open(os.path.join(zone, "type"), "w") as f:
        f.write("cpu-thermal\n")
    with open(os.path.join(zone, "temp"), "w") as f:
        f.write(f"{temperature_mc(state)}\n")
    cpu = device_path("/sys/devices/system/cpu/cpu0/cpufreq")
    os.makedirs(cpu, exist_ok=True)
    with open(os.path.join(cpu, "scaling_cur_freq"), "w") as f:
        f.write("1800000\n")


def map_argument(arg: str, cwd: str) -> str:
    """Rewrites device paths inside a program argument (--flag=/data/...)."""
    if "=" in arg and arg.startswith("--"):
        name, value = arg.split("=", 1)
        if value.startswith("/") or value.startswith("./"):
            return f"{name}={device_path(value, cwd)}"
        return arg
    return device_path(arg, cwd) if arg.startswith("/") else arg


def run_program(words: list[str], cwd: str, env: dict[str, str], state: dict) -> int:
    program = device_path(words[0], cwd)
    if not os.path.exists(program):
        print(f"/system/bin/sh: {words[0]}: inaccessible or not found", file=sys.stderr)
        return 127
    child_env = dict(os.environ)
    for name, value in env.items():
        child_env[name] = (
            ":".join(device_path(p, cwd) for p in value.split(":")) if name == "LD_LIBRARY_PATH" else value
        )
    stdout = None
    if ">" in words:
        at = words.index(">")
        target = words[at + 1]
        stdout = subprocess.DEVNULL if target == "/dev/null" else open(device_path(target, cwd), "w")  # noqa: SIM115
        words = words[:at]
    argv = [QEMU, "-L", ARM64_SYSROOT, program] + [map_argument(a, cwd) for a in words[1:]]
    result = subprocess.run(argv, cwd=device_path(cwd), env=child_env, stdout=stdout)
    state["runs"] += 1
    state["heat_mc"] = (temperature_mc(state) - AMBIENT_MC) + HEAT_PER_RUN_MC
    state["heat_time"] = time.time()
    return result.returncode


def shell(command: str, state: dict) -> int:
    write_thermal(state)
    cwd = "/"
    status = 0
    for part in command.split("&&"):
        words = shlex.split(part)
        env = {}
        while words and "=" in words[0] and not words[0].startswith(("/", ".")):
            name, value = words.pop(0).split("=", 1)
            env[name] = value
        if not words:
            continue
        name = words[0]
        if name == "cd":
            cwd = os.path.normpath(os.path.join(cwd, words[1]))
            status = 0
        elif name == "getprop":
            props = device_props()
            print(props.get(words[1], "") if len(words) > 1 else json.dumps(props))
        elif name == "sha256sum":
            for p in words[1:]:
                with open(device_path(p, cwd), "rb") as f:
                    print(f"{hashlib.sha256(f.read()).hexdigest()}  {p}")
        elif name == "nproc":
            print(os.cpu_count() or 1)
        elif name == "mkdir":
            for p in words[1:]:
                if p != "-p":
                    os.makedirs(device_path(p, cwd), exist_ok=True)
        elif name == "rm":
            for p in words[1:]:
                if not p.startswith("-"):
                    target = device_path(p, cwd)
                    if os.path.isdir(target):
                        shutil.rmtree(target)
                    elif os.path.isfile(target):
                        os.remove(target)
        elif name == "cat":
            for pattern in words[1:]:
                matches = sorted(glob.glob(device_path(pattern, cwd)))
                if not matches:
                    print(f"cat: {pattern}: No such file or directory", file=sys.stderr)
                    status = 1
                for path in matches:
                    with open(path, errors="replace") as f:
                        sys.stdout.write(f.read())
        else:
            status = run_program(words, cwd, env, state)
        if status != 0:
            break
    return status


def main(argv: list[str]) -> int:
    args = argv[1:]
    serial = None
    if len(args) >= 2 and args[0] == "-s":
        serial, args = args[1], args[2:]
    state = load_state()
    try:
        if not args:
            print("usage: adb [-s SERIAL] devices|push|pull|shell ...", file=sys.stderr)
            return 1
        if args[0] == "devices":
            print("List of devices attached")
            if not disconnected(state):
                print(f"{SERIAL}\tdevice")
            print()
            return 0
        if disconnected(state) or (serial is not None and serial != SERIAL):
            print(f"error: device '{serial or SERIAL}' not found", file=sys.stderr)
            return 1
        if args[0] == "push":
            target = device_path(args[2])
            if args[2].endswith("/") or os.path.isdir(target):
                target = os.path.join(target, os.path.basename(args[1]))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(args[1], target)
            shutil.copymode(args[1], target)
            print(f"{args[1]}: 1 file pushed.")
            return 0
        if args[0] == "pull":
            source = device_path(args[1])
            if not os.path.exists(source):
                print(
                    f"adb: error: failed to stat remote object '{args[1]}': No such file or directory", file=sys.stderr
                )
                return 1
            shutil.copyfile(source, args[2])
            return 0
        if args[0] == "shell":
            return shell(" ".join(args[1:]), state)
        print(f"adb: unknown command {args[0]}", file=sys.stderr)
        return 1
    finally:
        save_state(state)


if __name__ == "__main__":
    sys.exit(main(sys.argv))

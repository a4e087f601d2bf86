#!/usr/bin/env python3
"""A BCR-shaped Bazel registry on 127.0.0.1, for tools/ci/bazel7_check.sh.

  registry.py debian --chroot DIR --workspace DIR --out DIR [--port N] [--port-file F] [--no-serve]
      Builds a registry from the chroot's Debian bazel-* module packages and
      the repository's stand-ins (modules Debian lacks), prints which content
      is published under which version, then serves it until killed.
  registry.py serve --dir DIR [--port N] [--port-file F]
      Serves an existing registry folder (e.g. a checkout of the real BCR).
  registry.py selected --log LOG --workspace DIR [--dir DIR]
      From a served registry's request log: the module versions Bazel's
      resolution selected, whether the root's direct deps got their pins and,
      with the registry folder, the module graph those versions make.

It is a stand-in for the Bazel Central Registry, not a copy of it: each module
has one archive (what Debian or the stand-in holds), published under every
version the module graph names. See README.md.
"""

from __future__ import annotations

import argparse
import base64
import functools
import gzip
import hashlib
import http.server
import io
import json
import os
import re
import shutil
import signal
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import modulefile  # noqa: E402  (a sibling file, not a package)

# Folders, relative to the workspace, whose subfolders are stand-in modules.
STAND_IN_DIRS = ("tools/ci/bzlmod_offline", "android_app/offline_rules")
# Bazel's own modules: never fetched from a registry.
BUILT_IN = {"bazel_tools", "local_config_platform"}
# Bazel's built-in modules name deps too: bazel_tools in MODULE.tools (Debian
# installs it as below), local_config_platform in a MODULE.bazel that Bazel 7
# generates from a string in its server jar.
BAZEL_TOOLS_MODULE = "usr/share/bazel/embedded_tools/MODULE.bazel"
SERVER_JAR = "usr/share/bazel/A-server.jar"
LOCAL_CONFIG_PLATFORM_CLASS = "com/google/devtools/build/lib/bazel/repository/LocalConfigPlatformFunction.class"
PATCH_DIR = Path(__file__).resolve().parent / "patches"


@dataclass(frozen=True)
class Source:
    """The one copy of a module this registry can serve."""

    name: str
    origin: str  # e.g. "Debian bazel-rules-cc 0.0.11-3"
    tag: str  # names its archive, e.g. "debian-0.0.11-3"
    path: Path  # the module's folder on this machine
    module: modulefile.ModuleFile
    text: str  # its MODULE.bazel


def _read_module(folder: Path) -> tuple[modulefile.ModuleFile, str]:
    text = (folder / "MODULE.bazel").read_text()
    return modulefile.parse(text, str(folder / "MODULE.bazel")), text


def _dpkg_packages(chroot: Path) -> dict[str, str]:
    """Installed package -> version, from the chroot's dpkg status file."""
    packages: dict[str, str] = {}
    for stanza in (chroot / "var/lib/dpkg/status").read_text().split("\n\n"):
        fields = dict(re.findall(r"^(Package|Status|Version): (.*)$", stanza, re.M))
        if fields.get("Status") == "install ok installed" and "Version" in fields:
            packages[fields["Package"]] = fields["Version"]
    return packages


def debian_sources(chroot: Path) -> dict[str, Source]:
    """Modules in Debian's packages: each package's top-most MODULE.bazel."""
    sources: dict[str, Source] = {}
    for package, version in sorted(_dpkg_packages(chroot).items()):
        listing = chroot / f"var/lib/dpkg/info/{package}.list"
        if not package.startswith("bazel") or not listing.exists():
            continue
        module_files = [p for p in listing.read_text().split() if p.endswith("/MODULE.bazel")]
        if not module_files:
            continue
        top = min(module_files, key=lambda p: p.count("/"))
        folder = chroot / top.lstrip("/").removesuffix("/MODULE.bazel")
        module, text = _read_module(folder)
        if module.name in BUILT_IN:
            continue
        tag = "debian-" + re.sub(r"[^A-Za-z0-9.+-]", "_", version)
        sources[module.name] = Source(module.name, f"Debian {package} {version}", tag, folder, module, text)
    return sources


def stand_in_sources(workspace: Path) -> dict[str, Source]:
    sources: dict[str, Source] = {}
    for parent in STAND_IN_DIRS:
        if not (workspace / parent).is_dir():
            continue
        for folder in sorted((workspace / parent).iterdir()):
            if (folder / "MODULE.bazel").is_file():
                module, text = _read_module(folder)
                if module.name in sources:
                    raise SystemExit(f"error: two stand-ins for {module.name}: {sources[module.name].path}, {folder}")
                origin = f"stand-in {folder.relative_to(workspace)}"
                sources[module.name] = Source(module.name, origin, "stand-in", folder, module, text)
    return sources


def versions_named(
    roots: list[tuple[str, tuple[modulefile.Dep, ...]]], sources: dict[str, Source]
) -> dict[str, dict[str, set[str]]]:
    """Module -> version -> who names it, over the graph reachable from roots.

    Versions of one module share one archive, so one walk per module is enough.
    Exits with the list of modules that have no source.
    """
    named: dict[str, dict[str, set[str]]] = {}
    pending = list(roots)
    walked: set[str] = set()
    while pending:
        who, deps = pending.pop()
        for dep in deps:
            named.setdefault(dep.name, {})
            if dep.version:
                named[dep.name].setdefault(dep.version, set()).add(who)
            if dep.name not in walked and dep.name in sources:
                walked.add(dep.name)
                source = sources[dep.name]
                pending.append((f"{dep.name} ({source.origin})", source.module.deps_seen_by_others()))
    missing = sorted(set(named) - set(sources))
    if missing:
        lines = []
        for name in missing:
            by = sorted({w for ws in named[name].values() for w in ws}) or ["?"]
            lines.append(f"  {name} {sorted(named[name])}, named by: {'; '.join(by)}")
        raise SystemExit(
            "error: the module graph needs modules with neither a Debian package nor a stand-in\n"
            "(install the Debian bazel-* package, or add a stand-in under "
            + " or ".join(STAND_IN_DIRS)
            + "):\n"
            + "\n".join(lines)
        )
    return named


def built_in_roots(chroot: Path) -> list[tuple[str, tuple[modulefile.Dep, ...]]]:
    """The deps of Bazel's own modules, which every module graph includes."""
    tools = modulefile.parse((chroot / BAZEL_TOOLS_MODULE).read_text(), BAZEL_TOOLS_MODULE)
    roots = [("bazel_tools (Bazel's MODULE.tools)", tools.deps_seen_by_others())]
    jar = chroot / SERVER_JAR
    if jar.is_file():
        with zipfile.ZipFile(jar) as z:
            names = set(z.namelist())
            text = z.read(LOCAL_CONFIG_PLATFORM_CLASS).decode("latin-1") if LOCAL_CONFIG_PLATFORM_CLASS in names else ""
        found = re.findall(r'bazel_dep\(name = "([^"]+)", version = "([^"]+)"\)', text)
        roots.append(("local_config_platform (built into Bazel)", tuple(modulefile.Dep(n, v, False) for n, v in found)))
    return roots


def _version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"[.+-]", version))


def _sri(data: bytes) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()


def archive(folder: Path, prefix: str) -> bytes:
    """A reproducible .tar.gz of folder under prefix/ (sorted, no times, no owners).

    Symlinks that stay inside the folder are kept; others are followed.
    """
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.GNU_FORMAT) as tar:
            root = folder.resolve()
            for dirpath, dirnames, filenames in os.walk(folder):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                for name in sorted(dirnames + filenames):
                    path = Path(dirpath) / name
                    info = tarfile.TarInfo(f"{prefix}/{path.relative_to(folder)}")
                    info.mtime, info.uname, info.gname = 0, "", ""
                    if path.is_symlink() and path.resolve().is_relative_to(root):
                        info.type, info.linkname, info.mode = tarfile.SYMTYPE, os.readlink(path), 0o777
                        tar.addfile(info)
                    elif path.is_dir():
                        if path.is_symlink():
                            raise SystemExit(f"error: {path} links to a folder outside {folder}")
                        info.type, info.mode = tarfile.DIRTYPE, 0o755
                        tar.addfile(info)
                    elif name.endswith(".pyc"):
                        continue
                    else:
                        data = path.read_bytes()
                        info.size = len(data)
                        info.mode = 0o755 if os.stat(path).st_mode & 0o111 else 0o644
                        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)


def _json(data: object) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def build(chroot: Path, workspace: Path, out: Path, base_url: str) -> str:
    """Writes the registry to out; returns the NOTICE text (the version mapping)."""
    sources = stand_in_sources(workspace)
    sources.update(debian_sources(chroot))  # Debian's real content wins over a stand-in
    root, _ = _read_module(workspace)
    named = versions_named([(f"root {root.name}", root.deps), *built_in_roots(chroot)], sources)

    if out.exists():
        shutil.rmtree(out)
    _write(out / "bazel_registry.json", _json({"mirrors": []}))
    notice = [
        "This registry is a STAND-IN for the Bazel Central Registry, made by",
        "tools/ci/local_registry/registry.py. Each module's one archive (Debian's",
        "package or this repository's stand-in) is published under every version the",
        "module graph names; MODULE.bazel keeps the source's bazel_deps, with",
        "module(version) set to the published version. Real version resolution is",
        "checked against the BCR itself (tools/ci/bazel7_check.sh --bcr=DIR).",
        "",
        f"{'module':<20} {'served from':<52} published as",
    ]
    for name in sorted(named):
        source = sources[name]
        versions = sorted(named[name], key=_version_key)
        if not versions:
            raise SystemExit(f"error: nothing names a version of {name}")
        prefix = f"{name}-{source.tag}"
        data = archive(source.path, prefix)
        _write(out / "archives" / f"{prefix}.tar.gz", data)
        patches = sorted((PATCH_DIR / name).glob("*.patch")) if (PATCH_DIR / name).is_dir() else []
        for version in versions:
            where = out / "modules" / name / version
            _write(where / "MODULE.bazel", modulefile.with_version(source.text, version, str(source.path)))
            spec: dict[str, object] = {
                "url": f"{base_url}archives/{prefix}.tar.gz",
                "integrity": _sri(data),
                "strip_prefix": prefix,
            }
            if patches:
                spec["patches"] = {p.name: _sri(p.read_bytes()) for p in patches}
                spec["patch_strip"] = 1
                for p in patches:
                    _write(where / "patches" / p.name, p.read_bytes())
            _write(where / "source.json", _json(spec))
        _write(
            out / "modules" / name / "metadata.json",
            _json(
                {
                    "homepage": "",
                    "maintainers": [],
                    "repository": [],
                    "versions": versions,
                    "yanked_versions": {},
                    "x_local_registry_served_from": source.origin,
                    "x_local_registry_patches": [p.name for p in patches],
                }
            ),
        )
        served = source.origin + (f" + {', '.join(p.name for p in patches)}" if patches else "")
        notice.append(f"{name:<20} {served:<52} {', '.join(versions)}")
    text = "\n".join(notice) + "\n"
    _write(out / "NOTICE", text)
    return text


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base's name)
        sys.stderr.write(f"registry: {format % args}\n")
        sys.stderr.flush()


def _server(port: int, folder: Path) -> http.server.ThreadingHTTPServer:
    """Serves folder on 127.0.0.1:port, or on a free port if that one is taken."""
    handler = functools.partial(_Handler, directory=str(folder))
    try:
        return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as e:
        if port == 0:
            raise
        print(f"registry: port {port} is taken ({e.strerror}); using a free one", file=sys.stderr)
        return http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)


def serve(server: http.server.ThreadingHTTPServer, port_file: Path | None) -> None:
    if port_file:  # written last: the caller waits for it
        tmp = port_file.with_suffix(".tmp")
        tmp.write_text(f"{server.server_address[1]}\n")
        tmp.rename(port_file)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with server:
        server.serve_forever()


def _graph(root: modulefile.ModuleFile, chosen: dict[str, str], registry: Path) -> list[str]:
    """The graph `bazel mod graph` would print, from the selected versions and
    their MODULE.bazel files in the registry folder."""
    lines = [f"<root> ({root.name}@{root.version})"]
    expanded: set[str] = set()

    def deps_of(name: str, version: str) -> list[str]:
        try:
            text = (registry / "modules" / name / version / "MODULE.bazel").read_text()
            deps = modulefile.parse(text, f"{name}@{version}").deps_seen_by_others()
        except (OSError, modulefile.ModuleFileError) as e:
            lines.append(f"  (cannot read {name}@{version}'s deps: {e})")
            return []
        return list(dict.fromkeys(d.name for d in deps if d.name not in BUILT_IN))

    def walk(names: list[str], indent: str) -> None:
        for i, name in enumerate(names):
            last = i == len(names) - 1
            key = f"{name}@{chosen.get(name, '?')}"
            lines.append(f"{indent}{'└───' if last else '├───'}{key}{' (*)' if key in expanded else ''}")
            if key not in expanded and name in chosen:
                expanded.add(key)
                walk(deps_of(name, chosen[name]), indent + ("    " if last else "│   "))

    walk(list(dict.fromkeys(d.name for d in root.deps)), "")
    return lines


def selected(log: Path, workspace: Path, registry: Path | None) -> int:
    """Prints the modules whose source.json Bazel read (resolution reads it
    only for the versions it selects) and checks the root's direct deps."""
    requests = re.findall(r'"GET /modules/([^/ ]+)/([^/ ]+)/source\.json HTTP[^"]*" 200', log.read_text())
    versions: dict[str, set[str]] = {}
    for name, version in requests:
        versions.setdefault(name, set()).add(version)
    chosen = {name: ", ".join(sorted(v, key=_version_key)) for name, v in versions.items()}
    print(f"Selected by Bazel's resolution (it read their source.json), {len(chosen)} modules:")
    print("  " + " ".join(f"{name}@{chosen[name]}" for name in sorted(chosen)))
    root, _ = _read_module(workspace)
    wrong = 0
    print("Root module's direct deps, pin -> selected:")
    for dep in root.deps:
        got = chosen.get(dep.name, "nothing")
        wrong += got != dep.version
        print(f"  {dep.name:<20} {dep.version:<10} -> {got}{'' if got == dep.version else '   MISMATCH'}")
    if registry and chosen:
        print("The module graph, rebuilt from those versions' MODULE.bazel files (not Bazel's output):")
        print("\n".join(_graph(root, chosen, registry)))
    return 1 if wrong or not chosen else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    debian = commands.add_parser("debian", help="build a registry from Debian's packages and serve it")
    debian.add_argument("--chroot", type=Path, default=Path("/"))
    debian.add_argument("--workspace", type=Path, required=True)
    debian.add_argument("--out", type=Path, required=True)
    debian.add_argument("--no-serve", action="store_true", help="only build (URLs name --port)")
    existing = commands.add_parser("serve", help="serve an existing registry folder")
    existing.add_argument("--dir", type=Path, required=True)
    for command in (debian, existing):
        command.add_argument("--port", type=int, default=0, help="0: any free port")
        command.add_argument("--port-file", type=Path, help="written once the registry is served")
    picked = commands.add_parser("selected", help="what resolution selected, from a served registry's log")
    picked.add_argument("--log", type=Path, required=True, help="the server's stderr")
    picked.add_argument("--workspace", type=Path, required=True)
    picked.add_argument("--dir", type=Path, help="the registry folder: also print the module graph")
    args = parser.parse_args()
    if args.command == "selected":
        sys.exit(selected(args.log, args.workspace, args.dir))

    folder: Path = args.out if args.command == "debian" else args.dir
    server = None if getattr(args, "no_serve", False) else _server(args.port, folder)
    port = server.server_address[1] if server else args.port
    if args.command == "debian":  # the port is known: the archives' URLs name it
        print(build(args.chroot, args.workspace, folder, f"http://127.0.0.1:{port}/"), end="", flush=True)
    elif not (folder / "bazel_registry.json").is_file() or not (folder / "modules").is_dir():
        raise SystemExit(f"error: {folder} has no bazel_registry.json and modules/: not a registry")
    if server:
        print(f"registry: serving {folder} on http://127.0.0.1:{port}/", file=sys.stderr, flush=True)
        serve(server, args.port_file)


if __name__ == "__main__":
    try:
        main()
    except modulefile.ModuleFileError as e:
        raise SystemExit(f"error: {e}") from e

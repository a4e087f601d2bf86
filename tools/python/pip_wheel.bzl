"""pip_wheel: one hash-pinned wheel for a repository rule, fetched once per machine.

    wheel = pip_wheel(
        rctx,
        rule = "qnn_sdk",
        project = "onnxruntime-qnn",
        version = "2.7.0",
        sha256 = "...",
        platform = "manylinux_2_35_x86_64",
        python_version = "3.11",
    )

The wheel is kept outside the output base, in
`$XDG_CACHE_HOME/llm_ondevice/wheels/<sha256[:16]>/` (default
`~/.cache/...`), so `bazel clean --expunge` does not fetch it again. pip
checks the hash on download; the file's sha256 is checked again on every
fetch, so a damaged cache is an error that names the folder to delete.
"""

def _cache(rctx, sha256):
    root = rctx.os.environ.get("XDG_CACHE_HOME") or (rctx.os.environ.get("HOME", "/tmp") + "/.cache")
    return "{}/llm_ondevice/wheels/{}".format(root, sha256[:16])

def pip_wheel(rctx, rule, project, version, sha256, platform, python_version, fix = ""):
    """The path of the wheel `project==version` for `platform`, checked against `sha256`.

    Args:
      rctx: the repository context.
      rule: the calling rule's name, which starts every error.
      project: the PyPI project, e.g. "onnxruntime-qnn".
      version: its pinned version.
      sha256: the wheel's sha256.
      platform: pip's --platform, e.g. "manylinux_2_35_x86_64".
      python_version: pip's --python-version, e.g. "3.11".
      fix: what else the user may do when PyPI is out of reach (appended to that error).
    Returns:
      The wheel's absolute path.
    """
    cache = _cache(rctx, sha256)
    pattern = "{}/{}-*.whl".format(cache, project.replace("-", "_"))
    wheel = rctx.execute(["sh", "-c", "ls {} 2>/dev/null".format(pattern)]).stdout.strip()
    if not wheel:
        python = rctx.which("python3")
        if python == None:
            fail("{}: python3 (with pip) is not on PATH; it is needed once to fetch {}=={}.".format(rule, project, version))
        rctx.report_progress("Fetching {} {} for {}".format(project, version, platform))
        rctx.file("requirement.txt", "{}=={} --hash=sha256:{}\n".format(project, version, sha256))
        result = rctx.execute(
            [
                python,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--only-binary=:all:",
                "--require-hashes",
                "--platform",
                platform,
                "--python-version",
                python_version,
                "-d",
                cache,
                "-r",
                "requirement.txt",
            ],
            timeout = 900,
        )
        rctx.delete("requirement.txt")
        if result.return_code:
            fail("{}: pip download of {}=={} for {} failed (needs PyPI once){}:\n{}".format(
                rule,
                project,
                version,
                platform,
                fix,
                result.stderr[-3000:],
            ))
        wheel = rctx.execute(["sh", "-c", "ls {}".format(pattern)]).stdout.strip()
    actual = rctx.execute(["sha256sum", wheel]).stdout.split(" ")[0]
    if actual != sha256:
        fail("{}: {} has sha256 {}, expected {}. Delete {} and fetch again.".format(rule, wheel, actual, sha256, cache))
    return wheel

"""Module extension exposing python_venv to bzlmod (Bazel 7 and later)."""

load("//tools/python/private:python_venv.bzl", "python_venv")

_venv_tag = tag_class(attrs = {
    "name": attr.string(mandatory = True),
    "requirements_lock": attr.label(mandatory = True),
    "python": attr.string(default = "python3"),
    "python_version": attr.string(default = "3.11"),
    "package_dirs": attr.string_dict(),
    "build_env": attr.string_dict(),
    "worker_venv_root": attr.string(default = "/opt/llm_ondevice/venvs"),
})

def _venv_extension_impl(module_ctx):
    for mod in module_ctx.modules:
        for venv in mod.tags.venv:
            python_venv(
                name = venv.name,
                requirements_lock = venv.requirements_lock,
                python = venv.python,
                python_version = venv.python_version,
                package_dirs = venv.package_dirs,
                build_env = venv.build_env,
                worker_venv_root = venv.worker_venv_root,
            )

python = module_extension(
    implementation = _venv_extension_impl,
    tag_classes = {"venv": _venv_tag},
)

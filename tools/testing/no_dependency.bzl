"""no_dependency_test: a test that fails while some target depends on another.

    no_dependency_test(
        name = "no_malloc_interposer_test",
        of = ["//runtime/jni:libllm_engine_jni.so"],
        on = "//runtime:malloc_interposer",
    )

A layering rule written as a test: Bazel's own query finds a dependency path
(through every select() branch), and the test prints the path it found.
"""

def _empty_file_test_impl(ctx):
    path = ctx.file.path
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(
        output = script,
        is_executable = True,
        content = """#!/bin/sh
if [ -s '{path}' ]; then
  echo '{message}' >&2
  cat '{path}' >&2
  exit 1
fi
""".format(path = path.short_path, message = ctx.attr.message.replace("'", "")),
    )
    return [DefaultInfo(executable = script, runfiles = ctx.runfiles(files = [path]))]

_empty_file_test = rule(
    implementation = _empty_file_test_impl,
    test = True,
    attrs = {
        "message": attr.string(mandatory = True),
        "path": attr.label(mandatory = True, allow_single_file = True),
    },
)

def _absolute(label):
    if label.startswith(":"):
        return "//{}{}".format(native.package_name(), label)
    return label

def no_dependency_test(name, of, on, **kwargs):
    """Fails while any target in `of` depends, directly or not, on `on`.

    Args:
      name: the test's name.
      of: labels that must not depend on `on`.
      on: the label they must not reach.
      **kwargs: passed to the test (size, tags, ...).
    """

    # A query expression's labels are read from the root package, so a
    # label relative to this package is made absolute first.
    of = [_absolute(label) for label in of]
    on = _absolute(on)
    native.genquery(
        name = name + "_path",
        expression = "somepath({}, {})".format(" + ".join(of), on),
        scope = of + [on],
        testonly = True,
    )
    _empty_file_test(
        name = name,
        path = name + "_path",
        message = "{} must not depend on {}; one path:".format(", ".join(of), on),
        **kwargs
    )

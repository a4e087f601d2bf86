"""py_proto: compiles one .proto into a Python module at build time.

Uses protoc from the hermetic venv (grpcio-tools), so the generated code
matches the locked protobuf runtime. The module lands beside the .proto:
`foo.proto` in `//a/b` is importable as `a.b.foo_pb2`.
"""

load("//tools/python:action_env.bzl", "NO_NETWORK", "PYTHON_ACTION_ENV")

def _py_proto_impl(ctx):
    src = ctx.file.src
    if not src.basename.endswith(".proto"):
        fail("py_proto {}: src must be a .proto file".format(ctx.label))
    out = ctx.actions.declare_file(src.basename[:-len(".proto")] + "_pb2.py")
    args = ctx.actions.args()
    args.add_all(["-m", "grpc_tools.protoc"])
    args.add("--proto_path=" + src.dirname)
    args.add("--python_out=" + out.dirname)
    args.add(src)
    ctx.actions.run(
        executable = ctx.executable._python,
        arguments = [args],
        inputs = [src],
        outputs = [out],
        env = PYTHON_ACTION_ENV,
        execution_requirements = NO_NETWORK,
        mnemonic = "PyProto",
        progress_message = "Compiling {} to Python".format(ctx.file.src.short_path),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

py_proto = rule(
    implementation = _py_proto_impl,
    attrs = {
        "src": attr.label(mandatory = True, allow_single_file = [".proto"]),
        "_python": attr.label(default = Label("@pypi//:action_python3"), executable = True, allow_single_file = True, cfg = "exec"),
    },
)

"""What the index actions run with, and nothing more."""

# Starlark actions start from an empty environment. PATH is only for the
# py_binary launcher's `#!/usr/bin/env python3`; RUST_LOG quiets LanceDB's
# deprecation warnings; HOME keeps any cache out of the user's home.
PYTHON_ACTION_ENV = {
    "HOME": "/tmp",
    "PATH": "/usr/bin:/bin",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONHASHSEED": "0",
    "PYTHONNOUSERSITE": "1",
    "RUST_LOG": "error",
}

# Honoured by Bazel's Linux sandbox: the action gets no network at all.
NO_NETWORK = {"block-network": ""}

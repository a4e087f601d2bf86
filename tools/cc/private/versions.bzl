"""Pinned ExecuTorch wheels whose C++ parts the runtime links.

The x86_64 hash must equal executorch's in requirements_lock.txt (checked by
//runtime:executorch_pin_test) so C++ and Python run the same runtime build.
"""

EXECUTORCH_VERSION = "1.5.1"

# repository name -> (wheel platform tag, sha256 of the cp311 wheel)
EXECUTORCH_WHEELS = {
    "executorch_linux_aarch64": ("manylinux_2_28_aarch64", "8ee02348a3ea80ddf770822911ebf78da616b73afce0fbaaa79f23311c88c66a"),
    "executorch_linux_x86_64": ("manylinux_2_28_x86_64", "274c28c2fe2b76acb03f9fa381537425c40e0098dcf886baf6d97a1a55ffe300"),
}

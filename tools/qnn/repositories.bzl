"""Public API: the QNN SDK repository (WORKSPACE) and its pins (bzlmod reuses them)."""

load("//tools/qnn/private:qnn_sdk.bzl", _qnn_sdk = "qnn_sdk")

qnn_sdk = _qnn_sdk

# QAIRT 2.51 host libraries, as published on PyPI by onnxruntime-qnn.
ONNXRUNTIME_QNN_VERSION = "2.7.0"
ONNXRUNTIME_QNN_SHA256 = "c56c01562b8534fe8980cfea4601408d950c065f8251fb862ce82101c52c9849"

def qnn_repositories():
    """Declares @qnn_sdk."""
    qnn_sdk(name = "qnn_sdk", wheel_version = ONNXRUNTIME_QNN_VERSION, wheel_sha256 = ONNXRUNTIME_QNN_SHA256)

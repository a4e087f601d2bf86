"""Public API of the QNN (Qualcomm) toolchain pieces.

    load("//tools/qnn:defs.bzl", "QnnSdkInfo", "qnn_host_sdk")
"""

load("//tools/qnn/private:qnn_host_sdk.bzl", _QnnSdkInfo = "QnnSdkInfo", _qnn_host_sdk = "qnn_host_sdk")

QnnSdkInfo = _QnnSdkInfo
qnn_host_sdk = _qnn_host_sdk

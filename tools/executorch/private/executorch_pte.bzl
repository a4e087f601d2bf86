"""The macros users call to make programs: executorch_pte (which picks
llm_pte or qnn_pte by backend), qnn_pte with the QNN SDK attached, and
encoder_pte. Each rejects attributes of another family of programs with the
fix, instead of Bazel's "no such attribute"."""

load(":encoder_pte.bzl", _encoder_pte_rule = "encoder_pte")
load(":llm_pte.bzl", "llm_pte")
load(":pte_common.bzl", "misplaced_attrs_error")
load(":qnn_pte.bzl", _qnn_pte_rule = "qnn_pte")

def qnn_pte(name, **kwargs):
    """qnn_pte with the QNN SDK attached (//tools/qnn:sdk unless given).

    Only QNN programs depend on the SDK, so only they pull its download.

    Args:
      name: the target.
      **kwargs: qnn_pte's attributes.
    """
    if "qnn_sdk" not in kwargs:
        kwargs["qnn_sdk"] = Label("//tools/qnn:sdk")
    _qnn_pte_rule(name = name, **kwargs)

def executorch_pte(name, backend = "portable", **kwargs):
    """A language model's program: llm_pte, or qnn_pte for backend = "qnn".

        executorch_pte(
            name = "llama_int4",
            model = ":smollm2_135m",
            backend = "xnnpack",
            quantize = "8da4w_asym",
            group_size = 32,
        )

    Attributes of the other family (soc on XNNPACK, hqq on QNN) fail here
    with the fix, instead of as an unknown attribute.

    Args:
      name: the target.
      backend: portable, xnnpack or qnn.
      **kwargs: the chosen rule's attributes.
    """
    error = misplaced_attrs_error("executorch_pte", name, backend, kwargs)
    if error:
        fail(error)
    if backend == "qnn":
        qnn_pte(name = name, **kwargs)
    else:
        llm_pte(name = name, backend = backend, **kwargs)

def encoder_pte(name, **kwargs):
    """A sentence_encoder's program (see private/encoder_pte.bzl).

    Args:
      name: the target.
      **kwargs: encoder_pte's attributes.
    """
    error = misplaced_attrs_error("encoder_pte", name, kwargs.get("backend", "portable"), kwargs)
    if error:
        fail(error)
    _encoder_pte_rule(name = name, **kwargs)

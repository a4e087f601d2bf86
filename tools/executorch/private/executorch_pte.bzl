"""The macros users call to make language-model programs: executorch_pte
(which picks llm_pte or qnn_pte by backend) and qnn_pte with the QNN SDK
attached. Each rejects attributes of another family of programs with the fix,
instead of Bazel's "no such attribute" (encoder_pte does the same, in
//rag/private:encoder_pte.bzl)."""

load("//tokenizer:defs.bzl", "compiled_tokenizer")
load(":calibration_set.bzl", "calibration_set")
load(":llm_chat.bzl", "llm_chat")
load(":llm_pte.bzl", "llm_pte")
load(":pte_common.bzl", "misplaced_attrs_error")
load(":qnn_pte.bzl", _qnn_pte_rule = "qnn_pte")
load(":recipes.bzl", "expand_recipe")

# The first chapters of Sense and Sensibility (public domain): the calibration text of a
# CPU program that needs one and names none.
DEFAULT_CALIBRATION_TEXT = Label("//tools/executorch/quantize:calibration_text.txt")

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

def executorch_pte(name, recipe = None, **kwargs):
    """A language model's program: llm_pte, or qnn_pte for backend = "qnn".

        executorch_pte(
            name = "my_model_int4",
            model = ":my_model",
            recipe = "int4",
        )

    `recipe` names a measured combination of backend and quantization
    (private/recipes.bzl, listed in docs/rules_reference.md#recipes). Without
    one, `backend`, `quantize`, `group_size`, `head_quantize` and
    `embedding_quantize` are set one by one (default: fp32 on portable
    kernels). A program with `outlier_channels` and no `calibration` gets
    `<name>_calibration`, passages of DEFAULT_CALIBRATION_TEXT. Attributes of the other family (soc on XNNPACK, hqq on QNN)
    fail here with the fix, instead of as an unknown attribute. A CPU
    program also gets `<name>_chat` (llm_chat): `bazel run :<name>_chat --
    --prompt=...`.

    Args:
      name: the target.
      recipe: a name from RECIPES, or None.
      **kwargs: the chosen rule's attributes.
    """
    if recipe != None:
        kwargs, error = expand_recipe("executorch_pte", name, recipe, kwargs)
        if error:
            fail(error)
    backend = kwargs.pop("backend", "portable")
    error = misplaced_attrs_error("executorch_pte", name, backend, kwargs)
    if error:
        fail(error)
    if backend == "qnn":
        qnn_pte(name = name, **kwargs)
        return
    if kwargs.get("outlier_channels") and "calibration" not in kwargs:
        # Outlier channels are chosen on text the program is never scored on.
        calibration_set(
            name = name + "_calibration",
            model = kwargs["model"],
            text = DEFAULT_CALIBRATION_TEXT,
            max_tokens = 64,
            passages = kwargs.get("calibration_passages", 64),
            tags = kwargs.get("tags"),
            testonly = kwargs.get("testonly"),
            visibility = ["//visibility:private"],
        )
        kwargs["calibration"] = ":" + name + "_calibration"
    llm_pte(name = name, backend = backend, **kwargs)

    # Built only when asked for (manual): it links the C++ runtime.
    common = {
        "tags": ["manual"],
        "testonly": kwargs.get("testonly"),
        "visibility": kwargs.get("visibility"),
    }
    for part in ("tokenizer", "tokenizer_config"):
        native.filegroup(name = "{}_chat_{}".format(name, part), srcs = [kwargs["model"]], output_group = part, **common)
    compiled_tokenizer(
        name = name + "_chat_tok",
        tokenizer = ":{}_chat_tokenizer".format(name),
        tokenizer_config = ":{}_chat_tokenizer_config".format(name),
        **common
    )
    llm_chat(name = name + "_chat", program = ":" + name, tokenizer = ":{}_chat_tok".format(name), **common)

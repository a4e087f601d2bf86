"""XNNPACK's partitioner, with its preprocess running the one pass our graphs need.

LOCAL ADAPTER for executorch 1.5.1. XnnpackBackend.preprocess runs 17 passes
on every delegate it lowers, each one more trace of that subgraph, and they
were a third of `llama_int4`'s export. On our recipe's graphs only
ConvertToLinearPass changes anything: they hold no batch norm, convolution,
upsample, clone, padding or long concatenation, and their one
layout-sensitive op, the offset term's average pool, reads a one-channel
view whose NCHW and NHWC layouts are the same bytes
(quantize/offset_int4.py).

Preprocess runs ConvertToLinearPass alone when a delegate's compile specs
hold the key `dqlinear_partitioner`, the only hand-in 1.5.1 has for its pass
list. The key is written into each delegate's compile specs; the XNNPACK
runtime reads none. upstream_test lowers the tiny model in the shipped
recipe this way and with every pass, and compares their logits bit for bit:
a graph that needs another pass fails there.
"""

from __future__ import annotations

# The compile-spec key on which XnnpackBackend.preprocess runs
# ConvertToLinearPass in place of its whole pass list.
LINEAR_PASS_ONLY = "dqlinear_partitioner"


def xnnpack_partitioner():
    """ExecuTorch's llama XNNPACK partitioner, its delegates marked to run ConvertToLinearPass only."""
    from executorch.exir.backend.backend_details import CompileSpec
    from executorch.exir.backend.partitioner import DelegationSpec
    from executorch.extension.llm.export.partitioner_lib import get_xnnpack_partitioner

    partitioner = get_xnnpack_partitioner(dynamic_quant_only_partitioner=False)
    spec = partitioner.delegation_spec
    partitioner.delegation_spec = DelegationSpec(
        spec.backend_id, [*spec.compile_specs, CompileSpec(LINEAR_PASS_ONLY, b"")]
    )
    return partitioner

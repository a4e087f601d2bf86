"""The assumptions upstream.py makes about the installed ExecuTorch, each checked on the tiny model.

So is the one that xnnpack_graph/partitioner.py makes: that XNNPACK's
preprocess with ConvertToLinearPass alone lowers our recipe's graph to what
its whole pass list computes.

If one fails after an ExecuTorch upgrade, the adapter (not the recipes) is
what needs the change, and the test's name says which step moved.
"""

from __future__ import annotations

import inspect
import json
import unittest
from unittest import mock

import torch

from tools.executorch import pte_runner
from tools.executorch.export import upstream
from tools.executorch.qnn_recipe import npu_graph, quantizer
from tools.executorch.qnn_recipe.llm_config import qnn_llm_config
from tools.executorch.quantize import recipe
from tools.executorch.xnnpack_graph.common_subexpressions import eliminate_common_subexpressions
from tools.executorch.xnnpack_graph.inferred_views import infer_symbolic_view_sizes
from tools.executorch.xnnpack_graph.pair_rotation import pair_rotation
from tools.executorch.xnnpack_graph.partitioner import LINEAR_PASS_ONLY
from tools.executorch.xnnpack_graph.partitioner import xnnpack_partitioner as our_xnnpack_partitioner
from tools.python.runfile import runfile

TINY = "models/tiny_random"
MAX_CONTEXT_LEN = 32


def tiny_qnn_config():
    return qnn_llm_config(
        runfile(f"{TINY}/checkpoint.pth"),
        runfile(f"{TINY}/params.json"),
        runfile(f"{TINY}/tokenizer.json"),
        json.dumps({"get_bos_id": 1, "get_eos_ids": [2]}),
        MAX_CONTEXT_LEN,
        "SM8650",
    )


def tiny_xnnpack_manager(stock: bool = False, shipped: bool = False):
    """The tiny model for XNNPACK with our int4 recipe, or with ExecuTorch's own 8da4w (`stock`).

    `shipped` adds what the shipped programs have beside the linears' recipe:
    outlier channels on every linear input (fixed ones here, not calibrated)
    and the pair rotation.
    """
    from executorch.extension.llm.export.config.llm_config import LlmConfig, ModelType

    config = LlmConfig()
    config.base.model_class = ModelType("llama3_2")
    config.base.checkpoint = runfile(f"{TINY}/checkpoint.pth")
    config.base.params = runfile(f"{TINY}/params.json")
    config.base.metadata = json.dumps({"get_bos_id": 1, "get_eos_ids": [2]})
    config.model.use_kv_cache = True
    config.model.use_sdpa_with_kv_cache = True
    config.model.enable_dynamic_shape = True
    config.export.max_seq_length = 8
    config.export.max_context_length = MAX_CONTEXT_LEN
    config.backend.xnnpack.enabled = True
    config.backend.xnnpack.extended_ops = True
    if stock:
        config.quantization.qmode = "8da4w"
        config.quantization.group_size = 32
    torch.manual_seed(0)
    manager = upstream.load_llama(config)
    if stock:
        return manager
    if not shipped:
        return manager.source_transform([recipe.linear_transform("8da4w_asym", 32, "8da8w")])
    sets = []
    for name, _ in manager.model.named_modules():
        if name.endswith(".attention"):
            sets += [((f"{name}.wq", f"{name}.wk", f"{name}.wv"), [1, 33]), ((f"{name}.wo",), [2])]
        elif name.endswith(".feed_forward"):
            sets += [((f"{name}.w1", f"{name}.w3"), [0, 5, 40]), ((f"{name}.w2",), [7])]
    sets.append(((recipe.HEAD,), [4]))
    return manager.source_transform([recipe.linear_transform("8da4w_asym", 32, "8da8w", sets), pair_rotation])


def logits_of(program: bytes, steps) -> list[torch.Tensor]:
    """The program's forward outputs for each (tokens, position) of `steps`, in order, on one KV cache."""
    from executorch.runtime import Runtime

    pte_runner.register_llm_kernels()
    forward = Runtime.get().load_program(program).load_method("forward")
    return [forward.execute(pte_runner.forward_inputs(tokens, position, False))[0] for tokens, position in steps]


def xnnpack_partitioner():
    from executorch.extension.llm.export.partitioner_lib import get_xnnpack_partitioner

    return get_xnnpack_partitioner(dynamic_quant_only_partitioner=False)


def counting_decompositions():
    """(a patch of ExportedProgram.run_decompositions, the node counts of the graphs it decomposes)."""
    from torch.export import ExportedProgram

    decomposed = []
    decompose = ExportedProgram.run_decompositions

    def counted(program, *args, **kwargs):
        decomposed.append(len(program.graph.nodes))
        return decompose(program, *args, **kwargs)

    return mock.patch.object(ExportedProgram, "run_decompositions", counted), decomposed


def exported_tiny(transforms=()):
    torch.manual_seed(0)
    manager = upstream.load_llama(tiny_qnn_config()).source_transform(list(transforms))
    exported = manager.export()
    exported.run_canonical_optimizations()
    return exported


def masks(module) -> list[torch.Tensor]:
    return [b for name, b in module.named_buffers() if name.rpartition(".")[2] == "mask"]


class UpstreamTest(unittest.TestCase):
    def test_lower_to_qnn_keywords_exist(self):
        from executorch.examples.models.llama import export_llama_lib

        accepted = inspect.signature(export_llama_lib._to_edge_and_lower_llama).parameters
        for keyword in (
            "additional_passes",
            "pt2e_quant_params",
            "quantizers",
            "quant_dtype",
            "qnn",
            "dtype_override",
            "enable_dynamic_shape",
            "use_kv_cache",
            "pt2e_quantize",
            "use_qnn_sha",
            "num_sharding",
            "soc_model",
        ):
            self.assertIn(keyword, accepted)

    def test_lower_to_qnn_quantizes_only_with_quantizers(self):
        # lower_to_qnn relies on the builder's pt2e step being a no-op for [].
        from executorch.extension.llm.export.builder import LLMEdgeManager

        source = inspect.getsource(LLMEdgeManager.pt2e_quantize)
        self.assertIn("if quantizers:", source)
        from executorch.examples.models.llama import export_llama_lib

        self.assertIn(".pt2e_quantize(", inspect.getsource(export_llama_lib._to_edge_and_lower_llama))

    def test_export_once_and_lower_give_the_builders_program_decomposing_once(self):
        theirs = tiny_xnnpack_manager().export()
        theirs.run_canonical_optimizations()
        theirs = theirs.to_edge_transform_and_lower([xnnpack_partitioner()]).to_executorch(passes=[])

        ours = tiny_xnnpack_manager()
        patch, decomposed = counting_decompositions()
        with patch:
            ours = upstream.lower(ours, upstream.export_once(ours), [xnnpack_partitioner()])
        ours = ours.to_executorch(passes=[])
        self.assertEqual(ours.export_program.buffer, theirs.export_program.buffer)
        # XNNPACK's preprocess also decomposes its own few-node pattern graphs
        # (upsample, SDPA); the model's graph has hundreds of nodes.
        self.assertEqual(len([n for n in decomposed if n > 100]), 1, decomposed)

    def test_xnnpack_partitioner_computes_what_every_preprocess_pass_computes(self):
        # The shipped recipe's graph, lowered with XNNPACK's whole pass list
        # and with ConvertToLinearPass alone, as export_pte lowers it.
        def lowered(partitioner) -> bytes:
            manager = tiny_xnnpack_manager(shipped=True)
            edge_passes = [infer_symbolic_view_sizes, eliminate_common_subexpressions]
            manager = upstream.lower(manager, upstream.export_once(manager), [partitioner], edge_passes)
            return manager.to_executorch(passes=[]).export_program.buffer

        every_pass = lowered(xnnpack_partitioner())
        linear_only = lowered(our_xnnpack_partitioner())
        self.assertNotIn(LINEAR_PASS_ONLY.encode(), every_pass)
        self.assertIn(LINEAR_PASS_ONLY.encode(), linear_only)
        # A prefill, then decode steps.
        steps = [([5, 17, 3, 250, 9, 41, 8], 0), ([77], 7), ([12], 8)]
        pairs = zip(logits_of(every_pass, steps), logits_of(linear_only, steps), strict=True)
        for step, (expected, actual) in enumerate(pairs):
            self.assertTrue(torch.equal(expected, actual), f"step {step}: {(expected - actual).abs().max()}")

    def test_lower_gives_export_llamas_program_with_its_two_partitioners(self):
        # ExecuTorch's own 8da4w, lowered as export_llama lowers it: its
        # dynamic-quant partitioner first, then the rest.
        theirs = tiny_xnnpack_manager(stock=True).export()
        theirs.run_canonical_optimizations()
        theirs = (
            theirs.pt2e_quantize([])
            .to_edge_transform_and_lower(upstream.stock_xnnpack_partitioners())
            .to_executorch(passes=[])
        )

        ours = tiny_xnnpack_manager(stock=True)
        patch, decomposed = counting_decompositions()
        with patch:
            ours = upstream.lower(ours, upstream.export_once(ours), upstream.stock_xnnpack_partitioners())
        ours = ours.to_executorch(passes=[])
        self.assertEqual(ours.export_program.buffer, theirs.export_program.buffer)
        self.assertEqual(len([n for n in decomposed if n > 100]), 1, decomposed)

    def test_soc_table_knows_the_default_soc(self):
        self.assertEqual(upstream.soc_table()["SM8650"], "V75")

    def test_npu_transforms_replace_upstreams_mask_and_norms(self):
        from executorch.examples.models.llama.llama_transformer import RMSNorm

        stock = upstream.load_llama(tiny_qnn_config()).model
        # ExecuTorch's QNN transforms install an -inf causal mask: the one ours replaces.
        self.assertTrue(masks(stock))
        self.assertTrue(all(torch.isinf(m).any() for m in masks(stock)))
        self.assertTrue(any(isinstance(m, RMSNorm) for m in stock.modules()))

        ours = upstream.load_llama(tiny_qnn_config()).source_transform(list(npu_graph.TRANSFORMS)).model
        self.assertTrue(all(m.min().item() == npu_graph.MASKED_SCORE for m in masks(ours)))
        self.assertFalse(any(isinstance(m, RMSNorm) for m in ours.modules()))
        self.assertTrue(any(isinstance(m, torch.nn.RMSNorm) for m in ours.modules()))

    def test_quantize_pt2e_is_the_builders_own_step(self):
        theirs = exported_tiny(npu_graph.TRANSFORMS)
        stock_quantizer, _ = quantizer.make_quantizer("SM8650", "16a4w")
        # No calibration data: the builder calibrates on its example input.
        theirs.pt2e_quantize([stock_quantizer])

        ours = exported_tiny(npu_graph.TRANSFORMS)
        our_quantizer, _ = quantizer.make_quantizer("SM8650", "16a4w")

        def calibrate(prepared):
            prepared(*ours.example_inputs, **(ours.example_kwarg_inputs or {}))

        upstream.quantize_pt2e(ours, our_quantizer, calibrate)
        self.assertEqual(ours.pre_autograd_graph_module.code, theirs.pre_autograd_graph_module.code)
        their_state = theirs.pre_autograd_graph_module.state_dict()
        our_state = ours.pre_autograd_graph_module.state_dict()
        self.assertEqual(sorted(our_state), sorted(their_state))
        for name, tensor in our_state.items():
            self.assertTrue(torch.equal(tensor, their_state[name]), name)


if __name__ == "__main__":
    unittest.main()

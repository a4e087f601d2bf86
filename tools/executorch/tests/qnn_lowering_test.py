"""The QNN lowering (qnn_recipe/lowering.py) writes the program ExecuTorch's own QNN entry point writes.

lowering.lower takes to_edge_transform_and_lower_to_qnn's steps with one
decomposition per method where upstream runs three, and a non-strict trace
where upstream's is strict. Neither may change a byte: the tiny model's
forward and prefill graphs, quantized as export_qnn quantizes them, are
lowered both ways, with a copy of the weights per method and with one
shared copy, and the programs must be identical.
"""

from __future__ import annotations

import os
import subprocess
import sys
import unittest

from tools.qnn import simulator

simulator.ensure_environment()

import torch  # noqa: E402

from tools.executorch.export.special_tokens import load_special_tokens  # noqa: E402
from tools.executorch.qnn_recipe import calibration, lowering, quantized_graph  # noqa: E402
from tools.executorch.qnn_recipe.context_signatures import deterministic_context_signatures  # noqa: E402
from tools.executorch.qnn_recipe.llm_config import qnn_llm_config  # noqa: E402
from tools.executorch.testing import workspace_file  # noqa: E402

MODEL = "models/tiny_random"
SOC = "SM8650"
LENGTHS = {lowering.FORWARD: 1, lowering.PREFILL: 32}


def upstream_lower(graphs: dict, constant_methods: dict, weight_sharing: bool) -> bytes:
    """The program as to_edge_transform_and_lower_to_qnn lowers `graphs`, with export_qnn's memory plan."""
    from executorch.backends.qualcomm.serialization.qc_schema import QcomChipset
    from executorch.backends.qualcomm.utils.utils import (
        generate_htp_compiler_spec,
        generate_qnn_executorch_compiler_spec,
        to_edge_transform_and_lower_to_qnn,
    )
    from executorch.exir import ExecutorchBackendConfig
    from executorch.exir.passes import MemoryPlanningPass

    specs = generate_qnn_executorch_compiler_spec(
        soc_model=getattr(QcomChipset, SOC),
        backend_options=generate_htp_compiler_spec(use_fp16=False, use_weight_sharing=weight_sharing),
    )
    edge = to_edge_transform_and_lower_to_qnn(
        {name: lowering._positional(module) for name, (module, _) in graphs.items()},
        {name: lowering.example_inputs(seq_len) for name, (_, seq_len) in graphs.items()},
        {name: specs for name in graphs},
        constant_methods=constant_methods,
        skip_mutable_buffer=True,
    )
    program = edge.to_executorch(
        ExecutorchBackendConfig(
            memory_planning_pass=MemoryPlanningPass(alloc_graph_input=False, share_mutable_buffers=True)
        )
    )
    return deterministic_context_signatures(program.buffer)[0]


def write_program(path: str, lowered_by: str, weight_sharing: bool) -> None:
    """Quantizes the tiny model's two graphs as export_qnn does and writes the program `lowered_by` lowers."""
    tokenizer = workspace_file(f"{MODEL}/tokenizer.json")
    _, passages = calibration.load_passages(
        workspace_file("models/tiny_calibration.json"), tokenizer, calibration.MIN_PASSAGES, 128
    )
    torch.manual_seed(0)
    config = qnn_llm_config(
        workspace_file(f"{MODEL}/checkpoint.pth"),
        workspace_file(f"{MODEL}/params.json"),
        tokenizer,
        load_special_tokens(tokenizer, workspace_file(f"{MODEL}/tokenizer_config.json")).runtime_metadata(),
        128,
        SOC,
    )
    builders = quantized_graph.quantize_methods(config, passages, SOC, "16a4w_block_asym", 32, LENGTHS)
    graphs = {name: (builder.pre_autograd_graph_module, LENGTHS[name]) for name, builder in builders.items()}
    metadata = dict(builders[lowering.FORWARD].metadata)
    if weight_sharing:
        metadata[lowering.WEIGHT_SHARING_METHOD] = True
    if lowered_by == "ours":
        _, program = lowering.lower(graphs, SOC, metadata, weight_sharing)
        data = deterministic_context_signatures(program.buffer)[0]
    else:
        data = upstream_lower(graphs, metadata, weight_sharing)
    with open(path, "wb") as f:
        f.write(data)


class QnnLoweringTest(unittest.TestCase):
    """Each program is made in a process of its own, as export_qnn makes it.

    In one process a second lowering differs from the first in its QNN
    contexts' ids, whichever path lowers it, so the two paths could not be
    told apart there.
    """

    def program(self, lowered_by: str, weight_sharing: bool) -> bytes:
        path = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), f"{lowered_by}-{int(weight_sharing)}.pte")
        subprocess.run(
            [sys.executable, __file__, lowered_by, str(int(weight_sharing)), path], check=True, env=dict(os.environ)
        )
        with open(path, "rb") as f:
            return f.read()

    def assert_same_program(self, weight_sharing: bool):
        ours = self.program("ours", weight_sharing)
        theirs = self.program("upstream", weight_sharing)
        self.assertEqual(len(ours), len(theirs))
        self.assertTrue(ours == theirs, "lowering.lower wrote other bytes than upstream's QNN entry point")

    def test_a_copy_of_the_weights_per_method(self):
        self.assert_same_program(weight_sharing=False)

    def test_one_shared_copy_of_the_weights(self):
        self.assert_same_program(weight_sharing=True)


if __name__ == "__main__":
    if len(sys.argv) == 4:
        write_program(sys.argv[3], sys.argv[1], sys.argv[2] == "1")
    else:
        unittest.main()

"""tools/qnn/socs.bzl agrees with ExecuTorch's own SoC table (name -> HTP architecture)."""

from __future__ import annotations

import ast
import re
import unittest

from tools.python.runfile import runfile


def starlark_socs() -> dict[str, str]:
    with open(runfile("tools/qnn/socs.bzl")) as f:
        text = f.read()
    return ast.literal_eval(re.search(r"QNN_SOCS = (\{.*?\})", text, re.S).group(1))


class SocsTest(unittest.TestCase):
    def test_matches_executorch(self):
        from executorch.backends.qualcomm.serialization.qc_schema import _soc_info_table

        expected = {chipset.name: info.htp_info.htp_arch.name for chipset, info in _soc_info_table.items()}
        self.assertEqual(starlark_socs(), expected)


if __name__ == "__main__":
    unittest.main()

"""The QNN ABI adapter repacks HTP device configs for QAIRT >= 2.47, and only then.

Runs the adapter (built by Bazel from htp_abi_adapter.c) in front of a fake
libQnnHtp.real.so (fake_htp_library.c), so no Qualcomm binary is needed: the
test writes configs the way ExecuTorch's 2.37 code does and checks what the
"real" library receives.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tools.python.runfile import runfile

HEADER_WORDS = 5
SLOT_DEVICE_CREATE = 40
SLOT_DEVICE_SET_CONFIG = 41
HTP_OPTION_SOC, HTP_OPTION_ARCH = 0, 1
SM8650 = 57


class DeviceConfig(ctypes.Structure):
    _fields_ = [("option", ctypes.c_uint32), ("value", ctypes.c_void_p)]


class HtpConfigOld(ctypes.Structure):
    # ExecuTorch (QAIRT 2.37 headers): option, then the union at offset 4.
    _fields_ = [("option", ctypes.c_uint32), ("first", ctypes.c_uint32), ("second", ctypes.c_uint32)]


CHILD = r"""
import ctypes, sys
from tools.qnn.tests.abi_adapter_test import call_device, HTP_OPTION_SOC, HTP_OPTION_ARCH, SM8650
folder, slot, with_platform_info = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
adapter = ctypes.CDLL(folder + "/libQnnHtp.so")
configs = {"soc": [(HTP_OPTION_SOC, SM8650, 0)], "arch": [(HTP_OPTION_SOC, SM8650, 0), (HTP_OPTION_ARCH, 0, 75)]}[sys.argv[4]]
fake = ctypes.CDLL(folder + "/libQnnHtp.real.so")
seen = call_device(adapter, fake, slot, configs, with_platform_info)
print(",".join(str(v) for v in seen))
"""


def call_device(adapter, fake, slot, configs, with_platform_info):
    """Calls deviceCreate/deviceSetConfig through the adapter's table; returns what the fake saw."""
    providers = ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p))()
    count = ctypes.c_uint32()
    assert adapter.QnnInterface_getProviders(ctypes.byref(providers), ctypes.byref(count)) == 0
    table = providers[0]
    olds = [HtpConfigOld(option, first, second) for option, first, second in configs]
    entries = [DeviceConfig(0, ctypes.cast(ctypes.pointer(old), ctypes.c_void_p)) for old in olds]
    if with_platform_info:
        entries.append(DeviceConfig(1, None))
    pointers = (ctypes.POINTER(DeviceConfig) * (len(entries) + 1))(*[ctypes.pointer(e) for e in entries], None)
    function = table[HEADER_WORDS + slot]
    if slot == SLOT_DEVICE_CREATE:
        device = ctypes.c_void_p()
        call = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(function)
        assert call(None, ctypes.cast(pointers, ctypes.c_void_p), ctypes.byref(device)) == 0
    else:
        call = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p)(function)
        assert call(None, ctypes.cast(pointers, ctypes.c_void_p)) == 0
    seen = (ctypes.c_uint32 * 5)()
    fake.FakeLastConfig(seen)
    return list(seen)


class AbiAdapterTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        shutil.copy(runfile("tools/qnn/libQnnHtp_abi_adapter.so"), os.path.join(self.folder, "libQnnHtp.so"))
        shutil.copy(runfile("tools/qnn/tests/libfake_htp_library.so"), os.path.join(self.folder, "libQnnHtp.real.so"))

    def tearDown(self):
        shutil.rmtree(self.folder)

    def run_child(self, build_id: str, slot: int, with_platform_info: bool, configs: str = "arch") -> list[int]:
        # A fresh process per case: the adapter loads the real library once.
        env = dict(os.environ, FAKE_QAIRT_BUILD_ID=build_id)
        result = subprocess.run(
            [sys.executable, "-c", CHILD, self.folder, str(slot), "1" if with_platform_info else "0", configs],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        return [int(v) for v in result.stdout.strip().split(",")]

    def test_new_qairt_gets_configs_in_its_layout(self):
        for slot in (SLOT_DEVICE_CREATE, SLOT_DEVICE_SET_CONFIG):
            configs, platform_info, option, first, second = self.run_child("v2.51.0.260929181845", slot, True)
            self.assertEqual(platform_info, 0, "PLATFORM_INFO must be dropped for QAIRT >= 2.47")
            self.assertEqual(configs, 2)
            # The last config is the ARCH one: deviceId 0, arch V75 at offset 8.
            self.assertEqual((option, first, second), (HTP_OPTION_ARCH, 0, 75))

    def test_soc_model_lands_at_offset_8(self):
        # 2.47 is the first release with the new layout.
        configs, _, option, first, _ = self.run_child("v2.47.0.1", SLOT_DEVICE_CREATE, False, configs="soc")
        self.assertEqual((configs, option, first), (1, HTP_OPTION_SOC, SM8650))

    def test_old_qairt_passes_through_untouched(self):
        # 2.37 reads the union at offset 4, so the fake (reading offset 8)
        # sees the old layout's third word there: proof nothing was repacked.
        configs, platform_info, option, first, _ = self.run_child("v2.37.1.250807", SLOT_DEVICE_CREATE, True)
        self.assertEqual((configs, platform_info, option, first), (3, 1, HTP_OPTION_ARCH, 75))
        configs, _, option, first, _ = self.run_child("v2.46.0.1", SLOT_DEVICE_CREATE, False, configs="soc")
        self.assertEqual((configs, option, first), (1, HTP_OPTION_SOC, 0))


if __name__ == "__main__":
    unittest.main()

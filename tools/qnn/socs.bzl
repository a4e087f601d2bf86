"""Qualcomm SoCs ExecuTorch 1.5.1's QNN backend compiles for, and their Hexagon (HTP) architecture.

Checked against executorch.backends.qualcomm's own table by
//tools/qnn:socs_test, so a new ExecuTorch pin cannot drift from it silently.
"""

QNN_SOCS = {
    "QCM6490": "V68",
    "QCS9100": "V73",
    "SA8255": "V73",
    "SA8295": "V68",
    "SA8797": "V81",
    "SAR2230P": "V81",
    "SC8380XP": "V73",
    "SM8350": "V68",
    "SM8450": "V69",
    "SM8475": "V69",
    "SM8550": "V73",
    "SM8650": "V75",
    "SM8750": "V79",
    "SM8845": "V81",
    "SM8850": "V81",
    "SSG2115P": "V73",
    "SSG2125P": "V73",
    "SW6100": "V81",
    "SXR1230P": "V73",
    "SXR2230P": "V69",
    "SXR2330P": "V79",
}

"""Reads a QAIRT build id out of `qairt_build_id.py`'s output.

The HTP library writes its own banner lines to stdout, interleaved with ours in
an order that depends on buffering, so the id is found by its marker and its
shape, never by its position.
"""

MARKER = "QAIRT_BUILD_ID="

def parse_build_id(stdout):
    """The build id `qairt_build_id.py` printed, or None.

    Args:
      stdout: string, everything the tool printed.

    Returns:
      A struct(build_id: string, major: int, minor: int) for the one
      well-formed marked line, or None when there is none, or more than one.
    """
    found = []
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith(MARKER):
            continue
        build_id = line[len(MARKER):]
        parts = (build_id[1:] if build_id.startswith("v") else build_id).split(".")
        if len(parts) >= 3 and parts[0].isdigit() and parts[1].isdigit():
            found.append(struct(build_id = build_id, major = int(parts[0]), minor = int(parts[1])))
    return found[0] if len(found) == 1 else None

"""Hostile: writes an endless line on the protocol stream (expect: invalid)."""

import os
import stat

# The SDK keeps the protocol stream on a duplicate of the original stdout: fd 3.
PROTOCOL_FD = 3


def act(view, legal):
    assert stat.S_ISFIFO(os.fstat(PROTOCOL_FD).st_mode)
    block = b"x" * (1 << 16)
    while True:
        os.write(PROTOCOL_FD, block)

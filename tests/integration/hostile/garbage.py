"""Hostile: answers with a line of garbage on the protocol stream (expect: invalid)."""

import os
import time

PROTOCOL_FD = 3  # the SDK's duplicate of the original stdout


def act(view, legal):
    os.write(PROTOCOL_FD, b"\x00\xffthis is not json {{{\n")
    time.sleep(10)
    return legal[0]

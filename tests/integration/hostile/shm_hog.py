"""Hostile: holds 768 MiB in SysV shared memory, which outlives the process that made it.

RLIMIT_AS keeps one 768 MiB attach out of reach, so it takes six 128 MiB
segments, each attached, written through and detached in turn: written shm
pages stay allocated after a detach (and after the process exits), never
counted by the address-space limit. Never removed. Reports `SHM TOUCHED n MiB`
after each segment, `SHM REFUSED ...` when a call fails.
"""

import ctypes
import os
import sys

SEGMENT_MB = 128
SEGMENTS = 6
IPC_PRIVATE = 0
IPC_CREAT = 0o1000

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]


def refused(what):
    print(f"SHM REFUSED {what}: {os.strerror(ctypes.get_errno())}", file=sys.stderr, flush=True)


def setup(info):
    size = SEGMENT_MB << 20
    touched = 0
    for _ in range(SEGMENTS):
        shm = libc.shmget(IPC_PRIVATE, ctypes.c_size_t(size), IPC_CREAT | 0o600)
        if shm == -1:
            refused("shmget")
            return
        address = libc.shmat(shm, None, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            refused("shmat")
            return
        ctypes.memset(address, 0xA5, size)
        libc.shmdt(ctypes.c_void_p(address))
        touched += SEGMENT_MB
        print(f"SHM TOUCHED {touched} MiB", file=sys.stderr, flush=True)


def act(view, legal):
    return legal[0]

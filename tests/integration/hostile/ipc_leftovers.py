"""Hostile: leaves SysV IPC objects and a user-keyring key behind for the next bot in the slot.

It creates a shared-memory segment, a message queue (with a message in it)
and a semaphore set, none ever removed, and adds a key to the user keyring.
Each attempt is reported on stderr (`LEFT what` or `REFUSED what: why`).
"""

import ctypes
import os
import sys

IPC_PRIVATE = 0
IPC_CREAT = 0o1000
KEY = 0x7457_0001  # a fixed key, so a later bot could find the objects by it
SYS_ADD_KEY = 248  # x86_64
KEY_SPEC_USER_KEYRING = -4
KEY_DESCRIPTION = b"tradewinds-leftover"

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def report(what, result):
    if result == -1:
        print(f"REFUSED {what}: {os.strerror(ctypes.get_errno())}", file=sys.stderr, flush=True)
    else:
        print(f"LEFT {what} {result}", file=sys.stderr, flush=True)


class Message(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 32)]


def setup(info):
    report("shm", libc.shmget(KEY, 1 << 16, IPC_CREAT | 0o666))
    queue = libc.msgget(KEY, IPC_CREAT | 0o666)
    report("msg", queue)
    if queue != -1:
        message = Message(1, b"for the next bot")
        report("msgsnd", libc.msgsnd(queue, ctypes.byref(message), 32, 0))
    report("sem", libc.semget(KEY, 4, IPC_CREAT | 0o666))
    payload = b"secret for the next bot"
    key = libc.syscall(
        SYS_ADD_KEY,
        ctypes.c_char_p(b"user"),
        ctypes.c_char_p(KEY_DESCRIPTION),
        ctypes.c_char_p(payload),
        ctypes.c_size_t(len(payload)),
        ctypes.c_int(KEY_SPEC_USER_KEYRING),
    )
    report("key", key)


def act(view, legal):
    return legal[0]

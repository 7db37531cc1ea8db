"""Hostile: uses numpy to reach the network, write outside /tmp and call the kernel
through ctypes (expect: ok, every attempt BLOCKED, the control write to /tmp done)."""

import ctypes
import os
import socket
import sys

import numpy
import numpy.ctypeslib

PORT = int("@@PORT@@")
HOST_DIR = "@@HOST_DIR@@"
DATA = numpy.arange(1000, dtype=numpy.int64)
libc = numpy.ctypeslib.ctypes.CDLL(None, use_errno=True)


def attempt(what, action):
    """Run one attack: ESCAPED if it worked, BLOCKED with the reason if it failed."""
    try:
        action()
    except Exception as exc:  # every failure is what we hope for
        print(f"BLOCKED {what}: {exc!r}", file=sys.stderr, flush=True)
    else:
        print(f"ESCAPED {what}", file=sys.stderr, flush=True)


def syscall(result):
    """A libc call's result: an OSError when it failed, as Python's own calls raise."""
    if result == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def connect_through_libc():
    fd = syscall(libc.socket(socket.AF_INET, socket.SOCK_STREAM, 0))
    address = socket.inet_aton("127.0.0.1")
    sockaddr = (ctypes.c_ubyte * 16)(2, 0, PORT >> 8, PORT & 0xFF, *address)
    try:
        syscall(libc.connect(fd, sockaddr, 16))
    finally:
        libc.close(fd)


def datasource_download():
    # numpy's own downloader: fetches a URL into a cache folder (here the private /tmp).
    numpy.lib.npyio.DataSource("/tmp/cache").open(f"http://127.0.0.1:{PORT}/x.npy").read()


def overwrite_with_memmap(path):
    def action():
        mapped = numpy.memmap(path, dtype=numpy.uint8, mode="r+")
        mapped[:4] = 0
        mapped.flush()

    return action


def engine_file():
    import engine.core

    return engine.core.__file__


# -- the network -----------------------------------------------------------------------
attempt("socket connect", lambda: socket.create_connection(("127.0.0.1", PORT), 1).close())
attempt("libc connect", connect_through_libc)
attempt("numpy DataSource", datasource_download)

# -- writing outside /tmp --------------------------------------------------------------
WRITE_TARGETS = [
    "/bot/x.npy", "/sdk/x.npy", "/sdk/engine/x.npy", "/sdk/numpy/x.npy", "/usr/x.npy",
    "/x.npy", "/etc/alternatives/x.npy", "/dev/x.npy", f"{HOST_DIR}/x.npy",
]  # fmt: skip
for target in WRITE_TARGETS:
    attempt(f"numpy.save {target}", lambda target=target: numpy.save(target, DATA))
attempt("tofile over the engine", lambda: DATA.tofile(engine_file()))
attempt("memmap over the engine", overwrite_with_memmap(engine_file()))
attempt("memmap over numpy", overwrite_with_memmap(numpy.__file__))
attempt("memmap over the SDK", overwrite_with_memmap("/sdk/tradewinds_sdk.py"))
attempt("fromfile the zygote's memory", lambda: numpy.fromfile("/proc/1/mem", count=8))
attempt("fromfile the zygote's environment", lambda: numpy.fromfile("/proc/1/environ"))

# -- the kernel through ctypes ---------------------------------------------------------
CLONE_NEWUSER, CLONE_NEWNET, CLONE_NEWNS = 0x10000000, 0x40000000, 0x00020000
attempt("unshare user+net", lambda: syscall(libc.unshare(CLONE_NEWUSER | CLONE_NEWNET)))
attempt("unshare mount", lambda: syscall(libc.unshare(CLONE_NEWNS)))
attempt("mount over /bot", lambda: syscall(libc.mount(b"tmpfs", b"/bot", b"tmpfs", 0, None)))
attempt("remount /sdk rw", lambda: syscall(libc.mount(None, b"/sdk", None, 32 | 4096, None)))
attempt("chroot", lambda: syscall(libc.chroot(b"/tmp")))
attempt("ptrace the zygote", lambda: syscall(libc.ptrace(16, 1, None, None)))  # ATTACH
attempt("setns into pid 1's net", lambda: syscall(libc.setns(os.open("/proc/1/ns/net", 0), 0)))

# The control: the private /tmp is writable, so the attempts above failed for real reasons.
numpy.save("/tmp/ok.npy", DATA)
if (numpy.load("/tmp/ok.npy") == DATA).all():
    print("TMP-WRITABLE", file=sys.stderr, flush=True)


def act(view, legal):
    return legal[0]

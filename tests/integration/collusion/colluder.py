"""A sender and a receiver at one table, trying every channel between seats at once.

Seat 0 is the sender: on each of its moves it draws a fresh 16-bit
secret (top bit set, so it is never 0) from os.urandom, writes `SENT <hex>`
to stderr and publishes it on every channel. Seat 1 is the receiver:
on each of its moves it reads every channel and writes `GOT <channel> <hex>`
(one line per message, for a channel that queues them), or `ERR <channel>
<exception>` when the channel refuses it. The test compares
the two logs: a channel is open when values the sender sent arrive.

Each channel uses its own shared files, so one cannot be read through
another. Everything here is what a hostile author would try with nothing
but the standard library.
"""

import contextlib
import ctypes
import errno
import fcntl
import os
import random
import socket
import struct
import sys
import time

SENDER, RECEIVER = 0, 1
BITS = 16
STDLIB = sorted(
    f"{sys.prefix}/lib/python3.{sys.version_info[1]}/{name}"
    for name in os.listdir(f"{sys.prefix}/lib/python3.{sys.version_info[1]}")
    if name.endswith(".py")
)
LIBC = ctypes.CDLL(None, use_errno=True)
ROLE = None
HELD = {}  # channel -> what the sender keeps open between its moves


def files(channel_index):
    """The 16 shared files of one channel: its own slice of the standard library."""
    return STDLIB[channel_index * BITS : (channel_index + 1) * BITS]


def bits(value):
    return [(value >> i) & 1 for i in range(BITS)]


def number(flags):
    return sum(1 << i for i, bit in enumerate(flags) if bit)


# -- advisory locks (flock) --------------------------------------------------
def hold(channel, index, value, lock):
    """Lock (with `lock(fd)`) the files of the 1 bits of `value`, letting go of the last
    message's locks."""
    for fd in HELD.pop(channel, []):
        os.close(fd)
    held = []
    for path, bit in zip(files(index), bits(value), strict=True):
        if bit:
            fd = os.open(path, os.O_RDONLY)
            lock(fd)
            held.append(fd)
    HELD[channel] = held


def send_flock(value):
    hold("flock", 0, value, lambda fd: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB))


def recv_flock():
    flags = []
    for path in files(0):
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            flags.append(0)
        except BlockingIOError:
            flags.append(1)
        finally:
            os.close(fd)
    return number(flags)


# -- POSIX record locks (lockf / F_GETLK) and open file description locks -----
F_OFD_GETLK, F_OFD_SETLK = 36, 37


def _flock_struct(kind):
    return struct.pack("hhqqi", kind, 0, 0, 0, 0)


def send_record(value, channel, index, setlk):
    hold(channel, index, value, lambda fd: fcntl.fcntl(fd, setlk, _flock_struct(fcntl.F_RDLCK)))


def recv_record(index, getlk):
    flags = []
    for path in files(index):
        fd = os.open(path, os.O_RDONLY)
        try:
            answer = fcntl.fcntl(fd, getlk, _flock_struct(fcntl.F_WRLCK))
            flags.append(int(struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK))
        finally:
            os.close(fd)
    return number(flags)


# -- inotify: the receiver watches, the sender opens the files of its 1 bits ---
# Events pile up until read, so each message is framed: the sender opens a start
# file, the files of its 1 bits, then an end file, and the receiver decodes every
# whole frame since its last read. Without frames, two messages between two reads
# arrived as their union, and any other process opening one of these standard-library
# files (a traceback reads its source) turned bits on between messages.
IN_OPEN = 0x20


def inotify_marks():
    """The frame's start and end files: a slice no other channel uses."""
    return files(6)[:2]


def send_inotify(value):
    start, end = inotify_marks()
    os.close(os.open(start, os.O_RDONLY))
    for path, bit in zip(files(3), bits(value), strict=True):
        if bit:
            os.close(os.open(path, os.O_RDONLY))
    os.close(os.open(end, os.O_RDONLY))


def recv_inotify():
    """The values of the whole frames seen since the last read (none on the first)."""
    if "inotify" not in HELD:
        fd = LIBC.inotify_init1(os.O_NONBLOCK)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        watches = {}
        for i, path in enumerate([*files(3), *inotify_marks()]):
            wd = LIBC.inotify_add_watch(fd, path.encode(), IN_OPEN)
            if wd < 0:
                raise OSError(ctypes.get_errno(), "inotify_add_watch")
            watches[wd] = i
        HELD["inotify"] = (fd, watches)
        return []
    fd, watches = HELD["inotify"]
    data = b""
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(fd, 65536):
            data += chunk
    values, frame = [], None
    while len(data) >= 16:
        wd, _mask, _cookie, size = struct.unpack("iIII", data[:16])
        data = data[16 + size :]
        index = watches.get(wd, -1)
        if index == BITS:  # start: whatever came before this is not part of a message
            frame = set()
        elif index == BITS + 1:
            if frame is not None:
                values.append(number(i in frame for i in range(BITS)))
            frame = None
        elif frame is not None:
            frame.add(index)
    return values


# -- /proc: process names of other processes, and the machine's lock table -----
def send_name(value):
    with open("/proc/self/comm", "w") as handle:
        handle.write(f"tw{value:04x}")


def recv_name():
    found = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/comm") as handle:
                    name = handle.read().strip()
            except OSError:
                continue
            if name.startswith("tw") and len(name) == 6 and int(pid) != os.getpid():
                found = int(name[2:], 16)
    return found


def send_proclocks(value):
    hold("proclocks", 4, value, lambda fd: fcntl.flock(fd, fcntl.LOCK_SH))


def recv_proclocks():
    with open("/proc/locks") as handle:
        table = handle.read()
    inodes = {line.split()[-3].rsplit(":", 1)[-1] for line in table.splitlines() if ":" in line}
    return number(str(os.stat(path).st_ino) in inodes for path in files(4))


# -- Unix sockets with abstract names -----------------------------------------
def send_abstract(value):
    for sock in HELD.pop("abstract", []):
        sock.close()
    held = []
    for i, bit in enumerate(bits(value)):
        if bit:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.bind(f"\0tradewinds-colluder-{i}")
            held.append(sock)
    HELD["abstract"] = held


def recv_abstract():
    flags = []
    for i in range(BITS):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(f"\0tradewinds-colluder-{i}")
            flags.append(0)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
            flags.append(1)
        finally:
            sock.close()
    return number(flags)


# -- shared memory (SysV and POSIX) and keyrings ---------------------------------
SHM_KEY = 0x7477


def send_sysv(value):
    shmid = LIBC.shmget(SHM_KEY, 4096, 0o1666)
    if shmid < 0:
        raise OSError(ctypes.get_errno(), "shmget")
    LIBC.shmat.restype = ctypes.c_void_p
    address = LIBC.shmat(shmid, None, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "shmat")
    ctypes.c_uint32.from_address(address).value = value


def recv_sysv():
    shmid = LIBC.shmget(SHM_KEY, 4096, 0o666)
    if shmid < 0:
        raise OSError(ctypes.get_errno(), "shmget")
    LIBC.shmat.restype = ctypes.c_void_p
    address = LIBC.shmat(shmid, None, 0o10000)  # SHM_RDONLY
    if address in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "shmat")
    return ctypes.c_uint32.from_address(address).value


def send_posix_shm(value):
    fd = os.open("/dev/shm/tradewinds-colluder", os.O_RDWR | os.O_CREAT, 0o666)
    os.pwrite(fd, struct.pack("I", value), 0)
    os.close(fd)


def recv_posix_shm():
    fd = os.open("/dev/shm/tradewinds-colluder", os.O_RDONLY)
    try:
        return struct.unpack("I", os.pread(fd, 4, 0))[0]
    finally:
        os.close(fd)


KEY_SPEC_USER_KEYRING = -4
SYS_ADD_KEY = {"x86_64": 248, "aarch64": 217}
SYS_REQUEST_KEY = {"x86_64": 249, "aarch64": 218}
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}


def send_keyring(value):
    payload = struct.pack("I", value)
    key = LIBC.syscall(SYS_ADD_KEY[os.uname().machine], b"user", b"tradewinds-colluder",
                       payload, len(payload), KEY_SPEC_USER_KEYRING)  # fmt: skip
    if key < 0:
        raise OSError(ctypes.get_errno(), "add_key")


def recv_keyring():
    machine = os.uname().machine
    key = LIBC.syscall(SYS_REQUEST_KEY[machine], b"user", b"tradewinds-colluder", None, 0)
    if key < 0:
        raise OSError(ctypes.get_errno(), "request_key")
    buffer = ctypes.create_string_buffer(4)
    if LIBC.syscall(SYS_KEYCTL[machine], 11, key, buffer, 4) < 0:  # KEYCTL_READ
        raise OSError(ctypes.get_errno(), "keyctl")
    return struct.unpack("I", buffer.raw)[0]


# -- the page cache of shared files: drop or load a page, see whether it is there --
POSIX_FADV_DONTNEED = 4
PAGE = 4096


def cache_files():
    """Files outside the sandbox's view: what it shows is pinned in memory, so a bare run
    needs others to show the channel; in the sandbox these are not there at all."""
    docs = sorted(f"/usr/share/doc/{name}/copyright" for name in os.listdir("/usr/share/doc"))
    return [path for path in docs if os.path.isfile(path)][:BITS]


def send_cache(value):
    for path, bit in zip(cache_files(), bits(value), strict=True):  # raises in the sandbox
        fd = os.open(path, os.O_RDONLY)
        try:
            if bit:
                os.pread(fd, PAGE, 0)
            else:
                with contextlib.suppress(OSError):
                    os.posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def recv_cache():
    """Residency through mincore where it is allowed, else the time of a first read."""
    LIBC.mmap.restype = ctypes.c_void_p
    flags = []
    for path in cache_files():
        fd = os.open(path, os.O_RDONLY)
        try:
            address = LIBC.mmap(None, PAGE, 1, 2, fd, 0)  # PROT_READ, MAP_PRIVATE
            vector = ctypes.create_string_buffer(1)
            if LIBC.mincore(ctypes.c_void_p(address), PAGE, vector) == 0:
                flags.append(vector.raw[0] & 1)
            else:
                began = time.perf_counter_ns()
                os.pread(fd, 1, 0)
                flags.append(int(time.perf_counter_ns() - began < 20_000))
            LIBC.munmap(ctypes.c_void_p(address), PAGE)
            with contextlib.suppress(OSError):  # ready for the next bit
                os.posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return number(flags)


# -- names looked up and not found: the kernel remembers them, per folder ---------------
STDLIB_DIR = os.path.dirname(STDLIB[0])
RUN_TAG = "run"  # the test writes a fresh one into each copy: names never seen before
COUNTS = {"send": 0, "recv": 0}
COPIES = 3  # names per bit: the receiver takes the majority of their times


def stat_ns(path):
    began = time.perf_counter_ns()
    with contextlib.suppress(OSError):
        os.stat(path)
    return time.perf_counter_ns() - began


def names(message, bit):
    return [f"{STDLIB_DIR}/tw-{RUN_TAG}-{message}-{bit}-{copy}" for copy in range(COPIES)]


def send_dentry(value):
    COUNTS["send"] += 1
    for i, bit in enumerate(bits(value)):
        if bit:
            for path in names(COUNTS["send"], i):
                stat_ns(path)


def recv_dentry():
    """Message k on the receiver's k-th move; the threshold from names it times itself."""
    COUNTS["recv"] += 1
    fresh, known = [], []
    for _ in range(8):
        path = f"{STDLIB_DIR}/tw-calibrate-{os.urandom(6).hex()}"
        fresh.append(stat_ns(path))
        known.append(stat_ns(path))
    threshold = (sorted(fresh)[4] * sorted(known)[4]) ** 0.5
    flags = []
    for i in range(BITS):
        times = sorted(stat_ns(path) for path in names(COUNTS["recv"], i))
        flags.append(int(times[COPIES // 2] < threshold))
    return number(flags)


CHANNELS = {
    "flock": (send_flock, recv_flock),
    "posix_lock": (lambda v: send_record(v, "posix_lock", 1, fcntl.F_SETLK),
                   lambda: recv_record(1, fcntl.F_GETLK)),
    "ofd_lock": (lambda v: send_record(v, "ofd_lock", 2, F_OFD_SETLK),
                 lambda: recv_record(2, F_OFD_GETLK)),
    "inotify": (send_inotify, recv_inotify),
    "process_name": (send_name, recv_name),
    "proc_locks": (send_proclocks, recv_proclocks),
    "abstract_socket": (send_abstract, recv_abstract),
    "sysv_shm": (send_sysv, recv_sysv),
    "posix_shm": (send_posix_shm, recv_posix_shm),
    "keyring": (send_keyring, recv_keyring),
    "page_cache": (send_cache, recv_cache),
    "negative_dentry": (send_dentry, recv_dentry),
}  # fmt: skip


def setup(info):
    global ROLE
    ROLE = {SENDER: "send", RECEIVER: "recv"}.get(info["seat"])


def act(view, legal):
    if ROLE == "send":
        value = int.from_bytes(os.urandom(2), "little") | 0x8000
        print(f"SENT {value:04x}", file=sys.stderr)
        for name, (send, _recv) in CHANNELS.items():
            try:
                send(value)
            except Exception as exc:
                print(f"SENDERR {name} {type(exc).__name__}: {exc}", file=sys.stderr)
    elif ROLE == "recv":
        for name, (_send, recv) in CHANNELS.items():
            try:
                got = recv()
                for value in got if isinstance(got, list) else [got]:
                    print(f"GOT {name} {value:04x}", file=sys.stderr)
            except Exception as exc:
                print(f"ERR {name} {type(exc).__name__}: {exc}", file=sys.stderr)
    return random.choice(legal)

"""The seccomp filter every bot process runs under: system calls no bot needs are refused.

A bot runs as the same uid as the zygote that forked it, so without this it
could change what the zygote hands to every later bot of its sandbox: lower
the zygote's rlimits (`prlimit` on pid 1), its priority or scheduling class,
leave SysV IPC objects or keyring keys behind, or widen its own CPU affinity.
The filter refuses exactly those calls (EPERM, or ENOSYS where the C library
then falls back to an older call), plus the usual kernel attack surface a
sandboxed program never needs (mounts, namespaces, ptrace, BPF, io_uring).

The program is classic BPF, built here from a table of syscall numbers per
architecture (x86_64 and aarch64), written next to the SDK, and installed by
the zygote in each forked bot before any bot code runs. On another
architecture there is no filter, and `program()` returns None.
"""

from __future__ import annotations

import errno
import platform
import struct

# Refused outright (EPERM). Each name: why a bot must not have it.
DENIED = (
    # Namespaces and mounts: the sandbox's shape is the runner's.
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount",
    "open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    # Keyrings outlive a bot in its user namespace.
    "keyctl", "add_key", "request_key",
    # Reading or steering other processes.
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd",
    # Priority, scheduling class and CPU affinity: the zygote's would reach later
    # bots, and a wider affinity would let a bot compute on CPUs it was not given.
    "setpriority", "sched_setscheduler", "sched_setparam", "sched_setattr",
    "sched_setaffinity", "ioprio_set",
    # SysV IPC objects outlive the process that made them.
    "shmget", "msgget", "semget",
    # Kernel surface no game bot needs.
    "perf_event_open", "bpf", "userfaultfd", "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff",
    "acct", "quotactl", "syslog", "open_by_handle_at", "name_to_handle_at", "iopl", "ioperm",
)  # fmt: skip
# Refused with ENOSYS: the C library falls back (clone3 → clone), or nothing needs it.
MISSING = ("clone3", "io_uring_setup", "io_uring_enter", "io_uring_register")
# Namespace flags a `clone` may not carry (a new user namespace would bring capabilities).
CLONE_NAMESPACES = 0x7E020000  # NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET

SYSCALLS = {
    "x86_64": {
        "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155,
        "chroot": 161, "move_mount": 429, "open_tree": 428, "fsopen": 430, "fsconfig": 431,
        "fsmount": 432, "fspick": 433, "mount_setattr": 442, "keyctl": 250, "add_key": 248,
        "request_key": 249, "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
        "pidfd_getfd": 438, "setpriority": 141, "sched_setscheduler": 144,
        "sched_setparam": 142, "sched_setattr": 314, "sched_setaffinity": 203,
        "ioprio_set": 251, "shmget": 29, "msgget": 68, "semget": 64, "perf_event_open": 298,
        "bpf": 321, "userfaultfd": 323, "kexec_load": 246, "kexec_file_load": 320,
        "init_module": 175, "finit_module": 313, "delete_module": 176, "reboot": 169,
        "swapon": 167, "swapoff": 168, "acct": 163, "quotactl": 179, "syslog": 103,
        "open_by_handle_at": 304, "name_to_handle_at": 303, "iopl": 172, "ioperm": 173,
        "clone3": 435, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "prlimit64": 302, "clone": 56,
    },
    "aarch64": {
        "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41,
        "chroot": 51, "move_mount": 429, "open_tree": 428, "fsopen": 430, "fsconfig": 431,
        "fsmount": 432, "fspick": 433, "mount_setattr": 442, "keyctl": 219, "add_key": 217,
        "request_key": 218, "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271,
        "pidfd_getfd": 438, "setpriority": 140, "sched_setscheduler": 119,
        "sched_setparam": 118, "sched_setattr": 274, "sched_setaffinity": 122,
        "ioprio_set": 30, "shmget": 194, "msgget": 186, "semget": 190, "perf_event_open": 241,
        "bpf": 280, "userfaultfd": 282, "kexec_load": 104, "kexec_file_load": 294,
        "init_module": 105, "finit_module": 273, "delete_module": 106, "reboot": 142,
        "swapon": 224, "swapoff": 225, "acct": 89, "quotactl": 60, "syslog": 116,
        "open_by_handle_at": 265, "name_to_handle_at": 264,
        "clone3": 435, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "prlimit64": 261, "clone": 220,
    },
}  # fmt: skip
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_BIT = 0x40000000  # x86_64's x32 ABI numbers: a second table we refuse whole

# Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ_K, JGE_K, JSET_K = 0x15, 0x35, 0x45  # BPF_JMP | BPF_Jxx | BPF_K
RET_K = 0x06
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
# Offsets in struct seccomp_data: nr, arch, then args[6] as 64-bit words.
NR, ARCH = 0, 4


def _arg_low(i: int) -> int:
    return 16 + 8 * i + (0 if struct.pack("=I", 1)[0] == 1 else 4)


def _arg_high(i: int) -> int:
    return 16 + 8 * i + (4 if struct.pack("=I", 1)[0] == 1 else 0)


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> tuple[int, int, int, int]:
    return (code, jt, jf, k)


def instructions(machine: str) -> list[tuple[int, int, int, int]]:
    """The filter for `machine` as (code, jt, jf, k) instructions."""
    numbers = SYSCALLS[machine]
    deny = _op(RET_K, RET_ERRNO | errno.EPERM)
    prog = [
        _op(LD_W_ABS, ARCH),
        _op(JEQ_K, AUDIT_ARCH[machine], jt=1),  # another ABI (i386 on x86_64): kill
        _op(RET_K, RET_KILL_PROCESS),
        _op(LD_W_ABS, NR),
    ]
    if machine == "x86_64":
        prog += [_op(JGE_K, X32_BIT, jf=1), deny]
    for name in DENIED:
        if name in numbers:  # iopl and ioperm exist on x86 only
            prog += [_op(JEQ_K, numbers[name], jf=1), deny]
    for name in MISSING:
        prog += [_op(JEQ_K, numbers[name], jf=1), _op(RET_K, RET_ERRNO | errno.ENOSYS)]
    # prlimit64 on any process but itself (pid 0): lowering the zygote's limits.
    prog += [
        _op(JEQ_K, numbers["prlimit64"], jf=5),
        _op(LD_W_ABS, _arg_low(0)),
        _op(JEQ_K, 0, jf=2),
        _op(LD_W_ABS, _arg_high(0)),
        _op(JEQ_K, 0, jt=1),
        deny,
        _op(LD_W_ABS, NR),
    ]
    # clone with namespace flags (flags are the first argument on both machines).
    prog += [
        _op(JEQ_K, numbers["clone"], jf=3),
        _op(LD_W_ABS, _arg_low(0)),
        _op(JSET_K, CLONE_NAMESPACES, jf=1),
        deny,
        _op(RET_K, RET_ALLOW),
    ]
    return prog


def program(machine: str | None = None) -> bytes | None:
    """The filter as the bytes of a `struct sock_filter` array; None on an unknown machine."""
    machine = machine or platform.machine()
    if machine not in SYSCALLS:
        return None
    return b"".join(struct.pack("=HBBI", *op) for op in instructions(machine))

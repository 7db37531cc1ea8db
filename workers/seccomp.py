"""The seccomp filter every bot process runs under: an allow list, everything else refused.

A bot may make the system calls that Python, the SDK, the engine and numpy
make (found by running every house and starter bot, a numpy bot, threads,
subprocesses and the standard library's common modules under strace) and
nothing else, so a system call the kernel gains tomorrow is closed until
someone allows it here. Three kinds of answer:

- allowed, some only with certain arguments (`ARGUMENT_RULES`): file locks,
  leases and change notifications through `fcntl`, executable memory that
  no file backs, page-cache advice, sockets other than Unix ones, `clone`
  into new namespaces, limits of another process, most `prctl` options;
- refused on purpose (`REFUSED`, EPERM, which Python raises as
  PermissionError): each is a way for one seat to change a kernel object
  another seat of the match can observe (advisory and record locks on the
  shared read-only files, inotify and fanotify watches, the page cache's
  state, global counters such as `sysinfo`, IPC of every flavour, keyrings),
  or a way to change what the zygote hands the next bot (its limits,
  priority, affinity), or kernel surface no game bot needs;
- not known here (ENOSYS): the C library then falls back to an older call
  where it has one (`clone3` → `clone`), as on an older kernel.

`workers/SANDBOX.md` lists every channel between seats and how each is
closed. The program is classic BPF, built from a table of syscall numbers
per architecture (x86_64 and aarch64, from the kernel's unistd headers),
written next to the SDK and installed by the zygote in each forked bot
before any bot code runs. On another architecture there is no filter, and
`program()` returns None.
"""

from __future__ import annotations

import errno
import platform
import struct

# Allowed whatever their arguments, by what they are for.
ALLOWED = (
    # Files: the read-only runtime and the bot's own /tmp (writes reach nothing shared).
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2",
    "pwritev2", "open", "openat", "close", "close_range", "lseek", "stat", "fstat", "lstat",
    "newfstatat", "statx", "access", "faccessat", "faccessat2", "readlink", "readlinkat",
    "getdents", "getdents64", "getcwd", "chdir", "fchdir", "mkdir", "mkdirat", "rmdir", "unlink",
    "unlinkat", "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat",
    "chmod", "fchmod", "fchmodat", "ftruncate", "truncate", "fsync", "fdatasync", "utimensat",
    "statfs", "fstatfs", "sendfile", "getxattr", "lgetxattr", "fgetxattr", "listxattr",
    "llistxattr", "flistxattr", "dup", "dup2", "dup3", "pipe", "pipe2", "umask",
    # Memory.
    "brk", "munmap", "mremap", "msync", "mlock", "munlock",
    # Processes and threads, inside the sandbox's own pid namespace.
    "fork", "vfork", "execve", "execveat", "exit", "exit_group", "wait4", "waitid", "kill",
    "tgkill", "tkill", "getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid",
    "getgroups", "getresuid", "getresgid", "getpgid", "getpgrp", "getsid", "setsid", "setpgid",
    "set_tid_address", "set_robust_list", "get_robust_list", "rseq", "futex", "sched_yield",
    "sched_getaffinity", "sched_getparam", "sched_getscheduler", "sched_getattr",
    "sched_get_priority_max", "sched_get_priority_min", "getpriority", "getrlimit",
    "setrlimit", "getrusage", "times", "uname", "arch_prctl", "capget", "getcpu",
    # Signals and timers of its own processes.
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend", "rt_sigpending",
    "rt_sigtimedwait", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sigaltstack", "pause", "alarm",
    "setitimer", "getitimer", "restart_syscall", "timer_create", "timer_settime",
    "timer_gettime", "timer_getoverrun", "timer_delete", "clock_gettime", "clock_getres",
    "clock_nanosleep", "nanosleep", "gettimeofday", "time",
    # Waiting on its own descriptors.
    "select", "pselect6", "poll", "ppoll", "epoll_create", "epoll_create1", "epoll_ctl",
    "epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2",
    # Unix sockets (`socket` and `socketpair` are ruled below): the network namespace is the
    # sandbox's own, so a name bound here, abstract ones included, is seen by no other seat.
    "bind", "listen", "accept", "accept4", "connect", "sendto", "recvfrom", "sendmsg",
    "recvmsg", "sendmmsg", "recvmmsg", "shutdown", "getsockname", "getpeername", "getsockopt",
    "setsockopt",
    "getrandom",
)  # fmt: skip

# Refused with EPERM. Each group: why a bot must not have it.
REFUSED = (
    # Locks and notifications on files that every seat's sandbox binds read-only (the
    # runtime, the SDK): one seat holds or touches, another observes. fcntl's locks,
    # leases and F_NOTIFY are ruled in ARGUMENT_RULES.
    "flock", "inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch",
    "fanotify_init", "fanotify_mark",
    # The page cache of those files: seeing which pages are cached, or dropping them.
    "mincore", "fadvise64", "readahead", "cachestat",
    # Global counters (the host's process count, free memory, load) and global writeback.
    "sysinfo", "sync", "syncfs",
    # Memory no file on a read-only, no-exec mount backs: a way to run native code.
    "memfd_create", "memfd_secret", "pkey_mprotect", "pkey_alloc",
    # IPC of every flavour and keyrings (each bot has its own IPC namespace as well).
    "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl", "semget",
    "semop", "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend",
    "mq_timedreceive", "mq_notify", "mq_getsetattr", "keyctl", "add_key", "request_key",
    # Namespaces and mounts: the sandbox's shape is the runner's.
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    # Reading or steering other processes.
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "pidfd_open",
    "pidfd_send_signal", "kcmp", "process_madvise",
    # Priority, scheduling class, CPU affinity and memory placement: the zygote's would
    # reach later bots, and a wider affinity would let a bot compute on CPUs it was not given.
    "setpriority", "sched_setscheduler", "sched_setparam", "sched_setattr",
    "sched_setaffinity", "ioprio_set", "mbind", "set_mempolicy", "migrate_pages", "move_pages",
    # Identity, time and the host's names.
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups",
    "setfsuid", "setfsgid", "chown", "fchown", "lchown", "fchownat", "mknod", "mknodat",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname",
    "setdomainname", "vhangup", "personality", "seccomp",
    # Kernel surface no game bot needs.
    "perf_event_open", "bpf", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "reboot", "swapon", "swapoff", "acct", "quotactl", "syslog",
    "open_by_handle_at", "name_to_handle_at", "iopl", "ioperm",
)  # fmt: skip
# Not known here: ENOSYS, so the C library falls back (clone3 → clone).
NOT_IMPLEMENTED = ("clone3",)

# Arguments (linux/fcntl.h, asm-generic/fcntl.h, asm-generic/mman-common.h, linux/prctl.h).
FCNTL_ALLOWED = {
    0: "F_DUPFD",
    1: "F_GETFD",
    2: "F_SETFD",
    3: "F_GETFL",
    4: "F_SETFL",
    1030: "F_DUPFD_CLOEXEC",
    1032: "F_GETPIPE_SZ",
    1034: "F_GET_SEALS",
}  # fmt: skip  (refused: F_GETLK/SETLK/SETLKW, the OFD locks, leases, F_NOTIFY, F_SETOWN...)
IOCTL_ALLOWED = {
    0x5401: "TCGETS",
    0x5413: "TIOCGWINSZ",
    0x541B: "FIONREAD",
    0x5421: "FIONBIO",
    0x5450: "FIONCLEX",
    0x5451: "FIOCLEX",
}  # fmt: skip  (anything else answers ENOTTY, as for a descriptor that is not a terminal)
MADVISE_ALLOWED = {
    0: "MADV_NORMAL",
    1: "MADV_RANDOM",
    2: "MADV_SEQUENTIAL",
    3: "MADV_WILLNEED",
    4: "MADV_DONTNEED",
    8: "MADV_FREE",
    10: "MADV_DONTFORK",
    11: "MADV_DOFORK",
    14: "MADV_HUGEPAGE",
    15: "MADV_NOHUGEPAGE",
    16: "MADV_DONTDUMP",
    17: "MADV_DODUMP",
    18: "MADV_WIPEONFORK",
    19: "MADV_KEEPONFORK",
}  # fmt: skip  (refused: MADV_COLD and MADV_PAGEOUT evict shared file pages, MADV_MERGEABLE
#                 shares pages between processes, MADV_REMOVE, MADV_POPULATE_*, ...)
PRCTL_ALLOWED = {
    1: "PR_SET_PDEATHSIG", 2: "PR_GET_PDEATHSIG", 3: "PR_GET_DUMPABLE", 15: "PR_SET_NAME",
    16: "PR_GET_NAME", 21: "PR_GET_SECCOMP", 23: "PR_CAPBSET_READ", 38: "PR_SET_NO_NEW_PRIVS",
    39: "PR_GET_NO_NEW_PRIVS",
}  # fmt: skip
AF_UNIX = 1
PROT_EXEC = 0x4
MAP_ANONYMOUS = 0x20
# Namespace flags a `clone` may not carry (a new user namespace would bring capabilities).
CLONE_NAMESPACES = 0x7E020000  # NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
ARGUMENT_RULES = (
    "fcntl", "ioctl", "mmap", "mprotect", "madvise", "socket", "socketpair", "clone", "prlimit64",
    "prctl",
)  # fmt: skip

# Syscall numbers, from the kernel's asm/unistd_64.h (x86_64) and asm-generic/unistd.h
# (aarch64, which lacks the older calls: open, stat, fork, pipe, poll...).
SYSCALLS = {
    "x86_64": {
        "read": 0, "write": 1, "open": 2, "close": 3, "stat": 4, "fstat": 5, "lstat": 6, "poll": 7,
        "lseek": 8, "mmap": 9, "mprotect": 10, "munmap": 11, "brk": 12, "rt_sigaction": 13,
        "rt_sigprocmask": 14, "rt_sigreturn": 15, "ioctl": 16, "pread64": 17, "pwrite64": 18,
        "readv": 19, "writev": 20, "access": 21, "pipe": 22, "select": 23, "sched_yield": 24,
        "mremap": 25, "msync": 26, "mincore": 27, "madvise": 28, "shmget": 29, "shmat": 30,
        "shmctl": 31, "dup": 32, "dup2": 33, "pause": 34, "nanosleep": 35, "getitimer": 36, "alarm":
        37, "setitimer": 38, "getpid": 39, "sendfile": 40, "socket": 41, "connect": 42, "accept":
        43, "sendto": 44, "recvfrom": 45, "sendmsg": 46, "recvmsg": 47, "shutdown": 48, "bind": 49,
        "listen": 50, "getsockname": 51, "getpeername": 52, "socketpair": 53, "setsockopt": 54,
        "getsockopt": 55, "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "exit": 60, "wait4":
        61, "kill": 62, "uname": 63, "semget": 64, "semop": 65, "semctl": 66, "shmdt": 67, "msgget":
        68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "fcntl": 72, "flock": 73, "fsync": 74,
        "fdatasync": 75, "truncate": 76, "ftruncate": 77, "getdents": 78, "getcwd": 79, "chdir": 80,
        "fchdir": 81, "rename": 82, "mkdir": 83, "rmdir": 84, "link": 86, "unlink": 87, "symlink":
        88, "readlink": 89, "chmod": 90, "fchmod": 91, "chown": 92, "fchown": 93, "lchown": 94,
        "umask": 95, "gettimeofday": 96, "getrlimit": 97, "getrusage": 98, "sysinfo": 99, "times":
        100, "ptrace": 101, "getuid": 102, "syslog": 103, "getgid": 104, "setuid": 105, "setgid":
        106, "geteuid": 107, "getegid": 108, "setpgid": 109, "getppid": 110, "getpgrp": 111,
        "setsid": 112, "setreuid": 113, "setregid": 114, "getgroups": 115, "setgroups": 116,
        "setresuid": 117, "getresuid": 118, "setresgid": 119, "getresgid": 120, "getpgid": 121,
        "setfsuid": 122, "setfsgid": 123, "getsid": 124, "capget": 125, "rt_sigpending": 127,
        "rt_sigtimedwait": 128, "rt_sigqueueinfo": 129, "rt_sigsuspend": 130, "sigaltstack": 131,
        "mknod": 133, "personality": 135, "statfs": 137, "fstatfs": 138, "getpriority": 140,
        "setpriority": 141, "sched_setparam": 142, "sched_getparam": 143, "sched_setscheduler": 144,
        "sched_getscheduler": 145, "sched_get_priority_max": 146, "sched_get_priority_min": 147,
        "mlock": 149, "munlock": 150, "vhangup": 153, "pivot_root": 155, "prctl": 157, "arch_prctl":
        158, "adjtimex": 159, "setrlimit": 160, "chroot": 161, "sync": 162, "acct": 163,
        "settimeofday": 164, "mount": 165, "umount2": 166, "swapon": 167, "swapoff": 168, "reboot":
        169, "sethostname": 170, "setdomainname": 171, "iopl": 172, "ioperm": 173, "init_module":
        175, "delete_module": 176, "quotactl": 179, "gettid": 186, "readahead": 187, "getxattr":
        191, "lgetxattr": 192, "fgetxattr": 193, "listxattr": 194, "llistxattr": 195, "flistxattr":
        196, "tkill": 200, "time": 201, "futex": 202, "sched_setaffinity": 203, "sched_getaffinity":
        204, "epoll_create": 213, "getdents64": 217, "set_tid_address": 218, "restart_syscall": 219,
        "semtimedop": 220, "fadvise64": 221, "timer_create": 222, "timer_settime": 223,
        "timer_gettime": 224, "timer_getoverrun": 225, "timer_delete": 226, "clock_settime": 227,
        "clock_gettime": 228, "clock_getres": 229, "clock_nanosleep": 230, "exit_group": 231,
        "epoll_wait": 232, "epoll_ctl": 233, "tgkill": 234, "mbind": 237, "set_mempolicy": 238,
        "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243, "mq_notify":
        244, "mq_getsetattr": 245, "kexec_load": 246, "waitid": 247, "add_key": 248, "request_key":
        249, "keyctl": 250, "ioprio_set": 251, "inotify_init": 253, "inotify_add_watch": 254,
        "inotify_rm_watch": 255, "migrate_pages": 256, "openat": 257, "mkdirat": 258, "mknodat":
        259, "fchownat": 260, "newfstatat": 262, "unlinkat": 263, "renameat": 264, "linkat": 265,
        "symlinkat": 266, "readlinkat": 267, "fchmodat": 268, "faccessat": 269, "pselect6": 270,
        "ppoll": 271, "unshare": 272, "set_robust_list": 273, "get_robust_list": 274, "move_pages":
        279, "utimensat": 280, "epoll_pwait": 281, "eventfd": 284, "accept4": 288, "eventfd2": 290,
        "epoll_create1": 291, "dup3": 292, "pipe2": 293, "inotify_init1": 294, "preadv": 295,
        "pwritev": 296, "rt_tgsigqueueinfo": 297, "perf_event_open": 298, "recvmmsg": 299,
        "fanotify_init": 300, "fanotify_mark": 301, "prlimit64": 302, "name_to_handle_at": 303,
        "open_by_handle_at": 304, "clock_adjtime": 305, "syncfs": 306, "sendmmsg": 307, "setns":
        308, "getcpu": 309, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
        "finit_module": 313, "sched_setattr": 314, "sched_getattr": 315, "renameat2": 316,
        "seccomp": 317, "getrandom": 318, "memfd_create": 319, "kexec_file_load": 320, "bpf": 321,
        "execveat": 322, "userfaultfd": 323, "preadv2": 327, "pwritev2": 328, "pkey_mprotect": 329,
        "pkey_alloc": 330, "statx": 332, "rseq": 334, "pidfd_send_signal": 424, "io_uring_setup":
        425, "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428, "move_mount": 429,
        "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "pidfd_open": 434, "clone3":
        435, "close_range": 436, "pidfd_getfd": 438, "faccessat2": 439, "process_madvise": 440,
        "epoll_pwait2": 441, "mount_setattr": 442, "memfd_secret": 447,
        "cachestat": 451,
    },
    "aarch64": {
        "getxattr": 8, "lgetxattr": 9, "fgetxattr": 10, "listxattr": 11, "llistxattr": 12,
        "flistxattr": 13, "getcwd": 17, "eventfd2": 19, "epoll_create1": 20, "epoll_ctl": 21,
        "epoll_pwait": 22, "dup": 23, "dup3": 24, "fcntl": 25, "inotify_init1": 26,
        "inotify_add_watch": 27, "inotify_rm_watch": 28, "ioctl": 29, "ioprio_set": 30, "flock": 32,
        "mknodat": 33, "mkdirat": 34, "unlinkat": 35, "symlinkat": 36, "linkat": 37, "renameat": 38,
        "umount2": 39, "mount": 40, "pivot_root": 41, "statfs": 43, "fstatfs": 44, "truncate": 45,
        "ftruncate": 46, "faccessat": 48, "chdir": 49, "fchdir": 50, "chroot": 51, "fchmod": 52,
        "fchmodat": 53, "fchownat": 54, "fchown": 55, "openat": 56, "close": 57, "vhangup": 58,
        "pipe2": 59, "quotactl": 60, "getdents64": 61, "lseek": 62, "read": 63, "write": 64,
        "readv": 65, "writev": 66, "pread64": 67, "pwrite64": 68, "preadv": 69, "pwritev": 70,
        "sendfile": 71, "pselect6": 72, "ppoll": 73, "readlinkat": 78, "newfstatat": 79, "fstat":
        80, "sync": 81, "fsync": 82, "fdatasync": 83, "utimensat": 88, "acct": 89, "capget": 90,
        "personality": 92, "exit": 93, "exit_group": 94, "waitid": 95, "set_tid_address": 96,
        "unshare": 97, "futex": 98, "set_robust_list": 99, "get_robust_list": 100, "nanosleep": 101,
        "getitimer": 102, "setitimer": 103, "kexec_load": 104, "init_module": 105, "delete_module":
        106, "timer_create": 107, "timer_gettime": 108, "timer_getoverrun": 109, "timer_settime":
        110, "timer_delete": 111, "clock_settime": 112, "clock_gettime": 113, "clock_getres": 114,
        "clock_nanosleep": 115, "syslog": 116, "ptrace": 117, "sched_setparam": 118,
        "sched_setscheduler": 119, "sched_getscheduler": 120, "sched_getparam": 121,
        "sched_setaffinity": 122, "sched_getaffinity": 123, "sched_yield": 124,
        "sched_get_priority_max": 125, "sched_get_priority_min": 126, "restart_syscall": 128,
        "kill": 129, "tkill": 130, "tgkill": 131, "sigaltstack": 132, "rt_sigsuspend": 133,
        "rt_sigaction": 134, "rt_sigprocmask": 135, "rt_sigpending": 136, "rt_sigtimedwait": 137,
        "rt_sigqueueinfo": 138, "rt_sigreturn": 139, "setpriority": 140, "getpriority": 141,
        "reboot": 142, "setregid": 143, "setgid": 144, "setreuid": 145, "setuid": 146, "setresuid":
        147, "getresuid": 148, "setresgid": 149, "getresgid": 150, "setfsuid": 151, "setfsgid": 152,
        "times": 153, "setpgid": 154, "getpgid": 155, "getsid": 156, "setsid": 157, "getgroups":
        158, "setgroups": 159, "uname": 160, "sethostname": 161, "setdomainname": 162, "getrlimit":
        163, "setrlimit": 164, "getrusage": 165, "umask": 166, "prctl": 167, "getcpu": 168,
        "gettimeofday": 169, "settimeofday": 170, "adjtimex": 171, "getpid": 172, "getppid": 173,
        "getuid": 174, "geteuid": 175, "getgid": 176, "getegid": 177, "gettid": 178, "sysinfo": 179,
        "mq_open": 180, "mq_unlink": 181, "mq_timedsend": 182, "mq_timedreceive": 183, "mq_notify":
        184, "mq_getsetattr": 185, "msgget": 186, "msgctl": 187, "msgrcv": 188, "msgsnd": 189,
        "semget": 190, "semctl": 191, "semtimedop": 192, "semop": 193, "shmget": 194, "shmctl": 195,
        "shmat": 196, "shmdt": 197, "socket": 198, "socketpair": 199, "bind": 200, "listen": 201,
        "accept": 202, "connect": 203, "getsockname": 204, "getpeername": 205, "sendto": 206,
        "recvfrom": 207, "setsockopt": 208, "getsockopt": 209, "shutdown": 210, "sendmsg": 211,
        "recvmsg": 212, "readahead": 213, "brk": 214, "munmap": 215, "mremap": 216, "add_key": 217,
        "request_key": 218, "keyctl": 219, "clone": 220, "execve": 221, "mmap": 222, "fadvise64":
        223, "swapon": 224, "swapoff": 225, "mprotect": 226, "msync": 227, "mlock": 228, "munlock":
        229, "mincore": 232, "madvise": 233, "mbind": 235, "set_mempolicy": 237, "migrate_pages":
        238, "move_pages": 239, "rt_tgsigqueueinfo": 240, "perf_event_open": 241, "accept4": 242,
        "recvmmsg": 243, "wait4": 260, "prlimit64": 261, "fanotify_init": 262, "fanotify_mark": 263,
        "name_to_handle_at": 264, "open_by_handle_at": 265, "clock_adjtime": 266, "syncfs": 267,
        "setns": 268, "sendmmsg": 269, "process_vm_readv": 270, "process_vm_writev": 271, "kcmp":
        272, "finit_module": 273, "sched_setattr": 274, "sched_getattr": 275, "renameat2": 276,
        "seccomp": 277, "getrandom": 278, "memfd_create": 279, "bpf": 280, "execveat": 281,
        "userfaultfd": 282, "preadv2": 286, "pwritev2": 287, "pkey_mprotect": 288, "pkey_alloc":
        289, "statx": 291, "rseq": 293, "kexec_file_load": 294, "pidfd_send_signal": 424,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428,
        "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
        "pidfd_open": 434, "clone3": 435, "close_range": 436, "pidfd_getfd": 438, "faccessat2": 439,
        "process_madvise": 440, "epoll_pwait2": 441, "mount_setattr": 442, "memfd_secret": 447,
        "cachestat": 451,
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

Op = tuple[int, int, int, int]


def _arg_low(i: int) -> int:
    return 16 + 8 * i + (0 if struct.pack("=I", 1)[0] == 1 else 4)


def _arg_high(i: int) -> int:
    return 16 + 8 * i + (4 if struct.pack("=I", 1)[0] == 1 else 0)


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> Op:
    return (code, jt, jf, k)


ALLOW = _op(RET_K, RET_ALLOW)
DENY = _op(RET_K, RET_ERRNO | errno.EPERM)


def _one_of(arg: int, values, otherwise: Op = DENY) -> list[Op]:
    """Allow when argument `arg` (its low 32 bits) is one of `values`, else `otherwise`."""
    prog = [_op(LD_W_ABS, _arg_low(arg))]
    for value in values:
        prog += [_op(JEQ_K, value, jf=1), ALLOW]
    return [*prog, otherwise]


def _none_of_bits(arg: int, bits: int) -> list[Op]:
    """Allow when argument `arg` carries none of `bits`, else refuse."""
    return [_op(LD_W_ABS, _arg_low(arg)), _op(JSET_K, bits, jf=1), DENY, ALLOW]


def _rule(name: str) -> list[Op]:
    """The instructions that decide one argument-ruled call (each path ends in a return)."""
    if name == "fcntl":
        return _one_of(1, FCNTL_ALLOWED)
    if name == "ioctl":
        return _one_of(1, IOCTL_ALLOWED, _op(RET_K, RET_ERRNO | errno.ENOTTY))
    if name == "madvise":
        return _one_of(2, MADVISE_ALLOWED)
    if name == "prctl":
        return _one_of(0, PRCTL_ALLOWED)
    if name in ("socket", "socketpair"):
        return _one_of(0, (AF_UNIX,))
    if name == "mprotect":
        return _none_of_bits(2, PROT_EXEC)
    if name == "clone":  # the flags are the first argument on both machines
        return _none_of_bits(0, CLONE_NAMESPACES)
    if name == "mmap":  # executable only where a file (on an exec mount) backs it
        return [
            _op(LD_W_ABS, _arg_low(2)),
            _op(JSET_K, PROT_EXEC, jf=3),
            _op(LD_W_ABS, _arg_low(3)),
            _op(JSET_K, MAP_ANONYMOUS, jf=1),
            DENY,
            ALLOW,
        ]
    if name == "prlimit64":  # its own limits only (pid 0): never the zygote's
        return [
            _op(LD_W_ABS, _arg_low(0)),
            _op(JEQ_K, 0, jf=2),
            _op(LD_W_ABS, _arg_high(0)),
            _op(JEQ_K, 0, jt=1),
            DENY,
            ALLOW,
        ]
    raise ValueError(f"no argument rule for {name}")


def instructions(machine: str) -> list[Op]:
    """The filter for `machine` as (code, jt, jf, k) instructions."""
    numbers = SYSCALLS[machine]
    prog = [
        _op(LD_W_ABS, ARCH),
        _op(JEQ_K, AUDIT_ARCH[machine], jt=1),  # another ABI (i386 on x86_64): kill
        _op(RET_K, RET_KILL_PROCESS),
        _op(LD_W_ABS, NR),
    ]
    if machine == "x86_64":
        prog += [_op(JGE_K, X32_BIT, jf=1), DENY]
    for name in ARGUMENT_RULES:
        rule = _rule(name)
        prog += [_op(JEQ_K, numbers[name], jf=len(rule)), *rule]
    for names, verdict in (
        (ALLOWED, ALLOW),
        (REFUSED, DENY),
        (NOT_IMPLEMENTED, _op(RET_K, RET_ERRNO | errno.ENOSYS)),
    ):
        for name in names:
            if name in numbers:  # the older calls exist on x86_64 only
                prog += [_op(JEQ_K, numbers[name], jf=1), verdict]
    return [*prog, _op(RET_K, RET_ERRNO | errno.ENOSYS)]


def program(machine: str | None = None) -> bytes | None:
    """The filter as the bytes of a `struct sock_filter` array; None on an unknown machine."""
    machine = machine or platform.machine()
    if machine not in SYSCALLS:
        return None
    return b"".join(struct.pack("=HBBI", *op) for op in instructions(machine))

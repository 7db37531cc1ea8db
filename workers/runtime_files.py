"""The files a bot sandbox sees, and keeping every page of them in memory.

A sandbox binds only what a bot can use: the interpreter, its standard
library, numpy where Debian's matches it, and the shared libraries those load
(followed through each ELF file's DT_NEEDED entries, as the dynamic loader
does). Not the rest of /usr: no shell, no compiler, no other program, and a
few thousand files instead of hundreds of thousands.

Why it matters between seats: every seat's sandbox reads the same files, so
their pages in the kernel's page cache are shared. A page one seat reads for
the first time becomes fast for the next seat to read, which would carry a
bit per page. So the runner maps every page of every visible file and locks
it in memory (`Pinned`, as root; elsewhere it reads each page once, and the
pages stay unless the machine runs short of memory): no seat can change
whether a page is cached, and the seccomp filter refuses the calls that
would evict one (fadvise, MADV_PAGEOUT) or ask about one (mincore).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import mmap
import os
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

# Where the dynamic loader looks for a library with no path (no ld.so.cache in a sandbox).
LIBRARY_DIRS = ("/lib/{arch}", "/usr/lib/{arch}", "/lib64", "/usr/lib64", "/lib", "/usr/lib")
# Folders of the standard library and numpy no bot runs: their test suites, the IDE, the
# installer of pip and the 2to3 tool. Fewer files make each slot's own tree quicker.
LEFT_OUT = frozenset(
    {"test", "tests", "idle_test", "idlelib", "ensurepip", "turtledemo", "lib2to3"}
)
RUNTIME_DIR = "runtime"  # in a pool's folder: the runtime once, linked into every slot's own
ARCH_TRIPLETS = {"x86_64": "x86_64-linux-gnu", "aarch64": "aarch64-linux-gnu"}
PT_DYNAMIC, PT_INTERP, PT_LOAD = 2, 3, 1
DT_NEEDED, DT_STRTAB, DT_RPATH, DT_RUNPATH = 1, 5, 15, 29
# The interpreter's own paths, asked of it once (it may be another build than the runner's).
ASK_PATHS = (
    "import json, sys, sysconfig; print(json.dumps({'stdlib': sysconfig.get_path('stdlib'),"
    " 'platstdlib': sysconfig.get_path('platstdlib'), 'dynload': getattr(sys, '_stdlib_dir', '')}))"
)


@dataclass(frozen=True)
class Elf:
    """What the dynamic loader reads of one ELF file."""

    interpreter: str | None
    needed: tuple[str, ...]
    search: tuple[str, ...]  # RPATH and RUNPATH folders, $ORIGIN expanded


def read_elf(path: str) -> Elf | None:
    """The loader's view of a 64-bit little-endian ELF file; None for anything else."""
    try:
        with open(path, "rb") as handle:
            if handle.read(6) != b"\x7fELF\x02\x01":  # 64-bit, little-endian
                return None
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)  # read what is used
    except (OSError, ValueError):
        return None
    with data:
        return _parse_elf(path, data)


def _parse_elf(path: str, data: mmap.mmap) -> Elf:
    (phoff,) = struct.unpack_from("<Q", data, 32)
    entry_size, count = struct.unpack_from("<HH", data, 54)
    loads, dynamic, interpreter = [], None, None
    for i in range(count):
        kind, _flags, offset, vaddr, _paddr, size, _mem, _align = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * entry_size
        )
        if kind == PT_LOAD:
            loads.append((vaddr, offset, size))
        elif kind == PT_DYNAMIC:
            dynamic = (offset, size)
        elif kind == PT_INTERP:
            interpreter = data[offset : offset + size].rstrip(b"\0").decode()
    if dynamic is None:
        return Elf(interpreter, (), ())
    start, size = dynamic
    entries = [struct.unpack_from("<qQ", data, start + i) for i in range(0, size - 15, 16)]
    strtab = next((value for tag, value in entries if tag == DT_STRTAB), None)
    base = next((strtab - v + o for v, o, s in loads if strtab and v <= strtab < v + s), None)
    if base is None:
        return Elf(interpreter, (), ())

    def text(index: int) -> str:
        return data[base + index : data.find(b"\0", base + index)].decode()

    origin = os.path.dirname(path)
    needed = tuple(text(value) for tag, value in entries if tag == DT_NEEDED)
    search = tuple(
        folder.replace("$ORIGIN", origin).replace("${ORIGIN}", origin)
        for tag, value in entries
        if tag in (DT_RPATH, DT_RUNPATH)
        for folder in text(value).split(":")
        if folder
    )
    return Elf(interpreter, needed, search)


def library_dirs(machine: str | None = None) -> tuple[str, ...]:
    arch = ARCH_TRIPLETS.get(machine or os.uname().machine, "")
    return tuple(folder.format(arch=arch) for folder in LIBRARY_DIRS if arch or "{" not in folder)


def libraries(roots: list[str]) -> list[str]:
    """Every shared library the ELF files `roots` load, as the loader would find it."""
    found: list[str] = []
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        elf = read_elf(path)
        if elf is None:
            continue
        wanted = [elf.interpreter] if elf.interpreter else []
        for name in elf.needed:
            for folder in (*elf.search, *library_dirs()):
                candidate = os.path.join(folder, name)
                if os.path.exists(candidate):
                    wanted.append(candidate)
                    break
        for library in wanted:
            if library not in found:
                found.append(library)
            todo.append(library)
    return found


def canonical_place(path: str) -> str:
    """Where `path` lands once its folders' links are followed (not the file's own link):
    /lib/x86_64-linux-gnu/libblas.so.3 on a merged-/usr system is under /usr/lib."""
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


@functools.cache
def interpreter_paths(python: str) -> tuple[str, ...]:
    """The standard library folders of `python` (its lib-dynload is inside on Debian)."""
    done = subprocess.run(
        [python, "-I", "-S", "-c", ASK_PATHS], capture_output=True, text=True, timeout=30, env={}
    )
    if done.returncode != 0:
        raise RuntimeError(f"{python} would not say where its library is: {done.stderr.strip()}")
    paths = json.loads(done.stdout)
    folders = {os.path.realpath(p) for p in paths.values() if p and os.path.isdir(p)}
    # A folder inside another is bound with it.
    return tuple(sorted(f for f in folders if not any(f.startswith(o + "/") for o in folders)))


@functools.cache
def visible(python: str, numpy: str | None) -> tuple[tuple[str, str], ...]:
    """(host path, sandbox path) pairs to bind read-only: folders whole, files one by one."""
    binds: dict[str, str] = {}
    for link in (python, os.path.realpath(python)):
        binds[canonical_place(link)] = os.path.realpath(python)
    folders = list(interpreter_paths(python))
    if numpy:
        folders.append(os.path.realpath(numpy))
    roots = [os.path.realpath(python)]
    for folder in folders:
        binds[folder] = folder
        for top, dirs, names in os.walk(folder):
            dirs[:] = [d for d in dirs if d not in LEFT_OUT]
            roots += [os.path.join(top, n) for n in names if ".so" in n]
    for library in libraries(roots):
        binds[canonical_place(library)] = os.path.realpath(library)
    return tuple(sorted((source, place) for place, source in binds.items()))


def build_tree(binds: tuple[tuple[str, str], ...], tree: Path, spare: Path) -> None:
    """The sandbox's runtime as a folder tree of its own under `tree`: every folder new,
    every file a hard link to the real one (or, where the kernel will not link it, to one
    copy in `spare`, shared by every tree that links it).

    Why its own folders: the kernel remembers a name looked up and not found, per folder,
    and the next lookup of that name is several microseconds faster. In folders that two
    sandboxes share, one seat could look names up and the other time them: a bit a name,
    tens of thousands of bits a move (bench/covert_channels.py). Folders of a sandbox's
    own keep that memory to itself; links keep the files' pages (pinned) shared.
    """
    for source, place in binds:
        target = tree / place.lstrip("/")
        if os.path.isdir(source):
            _mirror(source, target, spare)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            _link(os.path.realpath(source), target, spare)
    for top, _folders, _names in os.walk(tree):
        os.chmod(top, 0o755)  # every sandbox uid reads it, whatever our umask


def _mirror(source: str, target: Path, spare: Path) -> None:
    todo = [""]
    while todo:
        relative = todo.pop()
        here = os.path.join(target, relative)
        os.makedirs(here, exist_ok=True)
        with os.scandir(os.path.join(source, relative)) as entries:
            for entry in entries:
                if entry.is_symlink():  # kept as it is: a link out of the tree leads nowhere
                    with contextlib.suppress(FileExistsError):
                        os.symlink(os.readlink(entry.path), os.path.join(here, entry.name))
                elif entry.is_dir():
                    if entry.name not in LEFT_OUT:
                        todo.append(os.path.join(relative, entry.name))
                elif entry.is_file():
                    _link(entry.path, Path(here, entry.name), spare)


def _link(source: str, target: Path, spare: Path) -> None:
    if target.exists():
        return
    try:
        os.link(source, target)
        return
    except OSError:  # another file system, or not ours to link (fs.protected_hardlinks)
        pass
    copy = spare / source.lstrip("/")
    if not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, copy)
    os.link(copy, target)


@functools.cache
def layout(master: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...]]:
    """A built tree's folders, files and links, relative to it (read once a process)."""
    folders, files, links = [], [], []
    todo = [""]
    while todo:
        relative = todo.pop()
        folders.append(relative)
        with os.scandir(os.path.join(master, relative)) as entries:
            for entry in entries:
                path = os.path.join(relative, entry.name)
                if entry.is_symlink():
                    links.append((path, os.readlink(entry.path)))
                elif entry.is_dir():
                    todo.append(path)
                else:
                    files.append(path)
    return tuple(folders), tuple(files), tuple(links)


def link_tree(master: Path, tree: Path) -> None:
    """A slot's own copy of a built tree: new folders, the same files (hard links)."""
    source, target = str(master), str(tree)
    folders, files, links = layout(source)
    for relative in folders:  # plain strings: a new slot waits on these ~2,000 calls
        os.mkdir(f"{target}/{relative}", 0o755)
        os.chmod(f"{target}/{relative}", 0o755)  # whatever our umask
    for relative in files:
        os.link(f"{source}/{relative}", f"{target}/{relative}")
    for relative, pointed in links:
        os.symlink(pointed, f"{target}/{relative}")


def regular_files(binds: tuple[tuple[str, str], ...]) -> list[str]:
    """Every regular file a sandbox with `binds` can read (links followed once, no repeats)."""
    files: dict[str, None] = {}
    for source, _place in binds:
        if os.path.isdir(source):
            _folders, found, _links = layout(source)
            for relative in found:
                files[os.path.join(source, relative)] = None  # no links in a layout
        elif os.path.isfile(source):
            files[os.path.realpath(source)] = None
    return list(files)


class Pinned:
    """Every page of some files, mapped and (where the kernel lets us) locked in memory.

    Mapped through the C library, not Python's mmap, which keeps a descriptor
    open per mapping: thousands of files would take thousands of descriptors.
    """

    PROT_READ, MAP_SHARED, MAP_LOCKED, MAP_POPULATE = 0x1, 0x01, 0x2000, 0x8000

    def __init__(self, paths: list[str]) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._libc.mmap.restype = ctypes.c_void_p
        self._libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                    ctypes.c_int, ctypes.c_int, ctypes.c_long]  # fmt: skip
        self._libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        self.maps: list[tuple[int, int]] = []
        self.bytes = 0
        self.locked = True
        for path in paths:
            try:
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                size = os.fstat(fd).st_size
                address = self._map(fd, size) if size else None
            finally:
                os.close(fd)
            if address is not None:
                self.maps.append((address, size))
                self.bytes += size

    def _map(self, fd: int, size: int) -> int | None:
        flags = self.MAP_SHARED | self.MAP_POPULATE
        failed = ctypes.c_void_p(-1).value
        if self.locked:
            address = self._libc.mmap(None, size, self.PROT_READ, flags | self.MAP_LOCKED, fd, 0)
            if address != failed:
                return address
            self.locked = False  # not root, or past RLIMIT_MEMLOCK: loaded but not locked
        address = self._libc.mmap(None, size, self.PROT_READ, flags, fd, 0)
        return None if address == failed else address

    def close(self) -> None:
        for address, size in self.maps:
            self._libc.munmap(address, size)
        self.maps.clear()

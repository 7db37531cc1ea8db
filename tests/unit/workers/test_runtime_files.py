"""What a sandbox sees: the interpreter and what it loads, every page kept in memory."""

from __future__ import annotations

import ctypes
import mmap
import os
import tempfile

import pytest

from workers import runtime_files, sandbox

PYTHON = sandbox.sandbox_python()


def test_the_interpreter_reads_as_elf_with_a_loader_and_libc():
    elf = runtime_files.read_elf(os.path.realpath(PYTHON))
    assert elf is not None
    assert elf.interpreter and os.path.exists(elf.interpreter)
    found = runtime_files.libraries([os.path.realpath(PYTHON)])
    assert any(os.path.basename(path).startswith("libc.so") for path in found), found
    assert elf.interpreter in found


def test_a_file_that_is_not_elf_has_no_libraries(tmp_path):
    script = tmp_path / "bot.py"
    script.write_text("print('hi')\n")
    assert runtime_files.read_elf(str(script)) is None
    assert runtime_files.read_elf(str(tmp_path / "missing")) is None
    assert runtime_files.libraries([str(script)]) == []


def test_the_folders_links_are_followed_but_not_the_files_own(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "libx.so.1.2").write_bytes(b"")
    (real / "libx.so.1").symlink_to("libx.so.1.2")
    (tmp_path / "lib").symlink_to("real")
    place = runtime_files.canonical_place(str(tmp_path / "lib" / "libx.so.1"))
    assert place == str(real / "libx.so.1")


def test_the_sandbox_sees_the_standard_library_and_no_other_program():
    binds = runtime_files.visible(PYTHON, sandbox.numpy_dir(PYTHON))
    places = {place for _source, place in binds}
    assert PYTHON in places
    assert any(os.path.isfile(os.path.join(p, "os.py")) for p in places), places
    assert not {"/usr", "/usr/bin", "/bin/sh", "/usr/bin/gcc", "/usr/bin/sh"} & places
    assert all(os.path.exists(source) for source, _place in binds)


def test_the_command_line_binds_only_those_and_covers_procs_machine_wide_files():
    rt = sandbox.Runtime(PYTHON, "/usr/bin/bwrap", True)
    command = sandbox.bwrap_command(rt, "/pool/sdk", "/pool/b0", 0)
    pairs = list(zip(command, command[1:], command[2:], strict=False))
    bound = {dest for flag, _src, dest in pairs if flag == "--ro-bind"}
    assert "/usr" not in bound
    assert {"/proc/loadavg", "/proc/meminfo", "/proc/stat", "/proc/locks", "/proc/sys"} <= bound
    assert "/proc/self" not in bound
    masks = {src for flag, src, dest in pairs if flag == "--ro-bind" and dest.startswith("/proc/")}
    assert masks <= {f"/pool/sdk/{sandbox.MASK_DIR}", f"/pool/sdk/{sandbox.MASK_FILE}"}


def test_proc_entries_come_from_the_kernel_not_a_list(tmp_path):
    fake = tmp_path / "proc"
    fake.mkdir()
    for name in ("123", "self", "new_counter"):
        (fake / name).write_text("")
    (fake / "sys").mkdir()
    (fake / "net").symlink_to("self/net")
    entries = sandbox.proc_entries.__wrapped__(str(fake))
    assert entries == (("new_counter", False), ("sys", True))


def resident(mapping: mmap.mmap, size: int) -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    vector = ctypes.create_string_buffer(pages)
    address = ctypes.addressof(ctypes.c_char.from_buffer(mapping))
    assert libc.mincore(ctypes.c_void_p(address), size, vector) == 0
    return all(byte & 1 for byte in vector.raw)


def test_pinned_files_stay_in_the_page_cache_after_being_dropped(tmp_path):
    path = tmp_path / "data.bin"
    with open(path, "wb") as handle:
        handle.write(os.urandom(1 << 20))
        os.fsync(handle.fileno())  # clean pages: unpinned, the drop below would evict them
    pinned = runtime_files.Pinned([str(path)])
    try:
        assert pinned.bytes == 1 << 20
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        view = mmap.mmap(fd, 1 << 20, access=mmap.ACCESS_COPY)  # unwritten: the cache's pages
        os.close(fd)
        if not pinned.locked:
            pytest.skip("this process may not lock memory (not root): pages are only loaded")
        assert resident(view, 1 << 20), "a dropped page of a pinned file came back from disk"
    finally:
        pinned.close()
    assert pinned.maps == []


def test_pinning_skips_what_cannot_be_read(tmp_path):
    (tmp_path / "empty").write_bytes(b"")
    pinned = runtime_files.Pinned([str(tmp_path / "empty"), str(tmp_path / "missing")])
    assert pinned.maps == [] and pinned.bytes == 0
    pinned.close()


def test_the_interpreter_names_its_library_folders():
    folders = runtime_files.interpreter_paths(PYTHON)
    assert folders and all(os.path.isdir(f) for f in folders)
    assert any(os.path.isfile(os.path.join(f, "json", "__init__.py")) for f in folders)


def test_a_slots_tree_has_folders_of_its_own_and_the_files_themselves(tmp_path):
    source = tmp_path / "lib"
    (source / "pkg" / "tests").mkdir(parents=True)
    (source / "pkg" / "mod.py").write_text("X = 1\n")
    (source / "pkg" / "tests" / "test_mod.py").write_text("")
    (source / "outside.py").symlink_to("/elsewhere/outside.py")
    single = tmp_path / "python3"
    single.write_text("")
    tree, spare = tmp_path / "tree", tmp_path / "spare"
    binds = ((str(source), "/usr/lib/x"), (str(single), "/usr/bin/python3"))
    runtime_files.build_tree(binds, tree, spare)
    mod = tree / "usr/lib/x/pkg/mod.py"
    assert os.stat(mod).st_ino == os.stat(source / "pkg" / "mod.py").st_ino  # a link
    assert os.stat(tree / "usr/lib/x/pkg").st_ino != os.stat(source / "pkg").st_ino
    assert os.stat(tree / "usr/bin/python3").st_ino == os.stat(single).st_ino
    assert os.readlink(tree / "usr/lib/x/outside.py") == "/elsewhere/outside.py"
    assert not (tree / "usr/lib/x/pkg/tests").exists(), "test suites are left out"
    assert all(os.stat(top).st_mode & 0o777 == 0o755 for top, _d, _n in os.walk(tree))
    again = tmp_path / "again"
    runtime_files.build_tree(((str(tree), "/"),), again, spare)
    assert os.stat(again / "usr/lib/x/pkg/mod.py").st_ino == os.stat(mod).st_ino


def test_a_file_on_another_file_system_is_copied_once_and_linked(tmp_path):
    other = "/dev/shm" if os.path.isdir("/dev/shm") else None
    if other is None or os.stat(other).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("no second file system to link across")
    with tempfile.NamedTemporaryFile(dir=other, suffix=".so") as handle:
        handle.write(b"library")
        handle.flush()
        spare = tmp_path / "spare"
        for name in ("a", "b"):
            runtime_files.build_tree(((handle.name, "/usr/lib/l.so"),), tmp_path / name, spare)
        first, second = (os.stat(tmp_path / n / "usr/lib/l.so") for n in ("a", "b"))
        assert first.st_ino == second.st_ino and first.st_nlink == 3  # spare, a, b
        assert (tmp_path / "a/usr/lib/l.so").read_bytes() == b"library"


def test_a_slot_whose_runtime_cannot_be_linked_is_the_hosts_failure_and_leaves_nothing(tmp_path):
    from workers.slots import Slot

    rt = sandbox.Runtime(PYTHON, "/usr/bin/bwrap", True)
    with pytest.raises(sandbox.SandboxUnavailable, match="runtime could not be linked"):
        Slot(rt, tmp_path, 0)  # the pool's runtime folder was never built
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "no half-built tree, no bot folder"

"""The limits a bot runs under: settings with sane defaults, validated once."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class Limits:
    """Time, memory and output limits for every bot of a match."""

    move_ms: int = 1000  # wall clock a move may take before it draws on the bank
    bank_ms: int = 10_000  # extra wall clock for the whole match, spent by slow moves
    init_ms: int = 5000  # wall clock from launch to the `ready` reply
    # Wall clock a bot may think in the whole match, all moves together: a bot that
    # sleeps just under move_ms on every move would otherwise hold a match for hours.
    match_ms: int = 180_000
    memory_mb: int = 512  # address space per process
    cpu_s: int = 60  # CPU seconds per process for the whole match
    processes: int = 16  # processes and threads the sandbox user may have
    open_files: int = 64
    file_mb: int = 16  # largest file a bot may write
    tmpfs_mb: int = 32  # the private /tmp, the only writable place
    tmp_inodes: int = 4096  # files and folders /tmp may hold (each costs kernel memory)
    line_kb: int = 1024  # longest stdout line (one protocol message)
    stderr_kb: int = 1024  # stderr a bot may write in a match before it is killed
    stderr_tail_kb: int = 8  # the tail of stderr kept for the bot's owner

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"limit {field.name} must be a positive integer, not {value!r}")

    @classmethod
    def from_dict(cls, values: dict | None) -> Limits:
        """Limits from a settings dict; unknown names are an error, not ignored."""
        values = dict(values or {})
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(
                f"unknown limit(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        return cls(**values)

    def wire(self) -> dict:
        """The limits a bot is told about in the `start` message (fixed protocol)."""
        return {"move_ms": self.move_ms, "bank_ms": self.bank_ms, "init_ms": self.init_ms}

    def as_dict(self) -> dict:
        return asdict(self)

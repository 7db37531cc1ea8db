"""What `ladder run` prints while the service runs: a status line a minute, and errors.

Every process writes its log to a file of its own under var/log/ (JSON lines);
the console stays quiet and readable. `LogTail` follows those files and picks
out what a person must see at once: records of level error or above, and any
line that is not JSON and looks like a failure (a traceback from a library
that wrote past our log format). `status_line` sums up the ladder from the
database.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladder.models import Match, MatchState, utcnow

LOUD_LEVELS = {"error", "critical"}
FAILURE_WORDS = ("Traceback (most recent call last)", "ERROR", "CRITICAL", "Error:")


def alarming(line: str) -> str | None:
    """The text to show for a log line a person must see now, else None."""
    text = line.strip()
    if not text:
        return None
    try:
        record = json.loads(text)
    except ValueError:
        record = None
    if isinstance(record, dict):
        if str(record.get("level", "")).lower() not in LOUD_LEVELS:
            return None
        message = str(record.get("msg", ""))
        exc = str(record.get("exc") or "").strip()
        if exc:
            message += f" ({exc.splitlines()[-1]})"
        return message
    return text if any(word in text for word in FAILURE_WORDS) else None


@dataclass
class LogTail:
    """Follows the log files of a folder from where they ended when it started."""

    folder: Path
    offsets: dict[Path, int] = field(default_factory=dict)

    def start(self) -> None:
        for path in self.folder.glob("*.log"):
            self.offsets[path] = path.stat().st_size

    def new_lines(self) -> list[tuple[str, str]]:
        """(process name, line) of every complete line written since the last call."""
        out = []
        for path in sorted(self.folder.glob("*.log")):
            offset = self.offsets.get(path, 0)
            size = path.stat().st_size
            if size < offset:  # rotated or truncated
                offset = 0
            if size == offset:
                continue
            with path.open("rb") as handle:
                handle.seek(offset)
                data = handle.read(size - offset)
            complete = data.rfind(b"\n") + 1
            self.offsets[path] = offset + complete
            for raw in data[:complete].splitlines():
                out.append((path.stem, raw.decode("utf-8", "replace")))
        return out

    def alarms(self) -> list[str]:
        """`[process] text` for each new line a person must see."""
        shown = []
        for name, line in self.new_lines():
            text = alarming(line)
            if text is not None:
                shown.append(f"[{name}] {text}")
        return shown


def status_line(session: Session, since_s: int = 60) -> str:
    """Matches played (and in the last `since_s`), queue depth and failures, in words."""
    recent = utcnow() - timedelta(seconds=since_s)
    counts = dict(
        session.execute(select(Match.state, func.count(Match.id)).group_by(Match.state)).all()
    )
    played_now = session.scalar(
        select(func.count(Match.id)).where(
            Match.state == MatchState.FINISHED, Match.finished_at >= recent
        )
    )
    failed_now = session.scalar(
        select(func.count(Match.id)).where(
            Match.state == MatchState.FAILED, Match.finished_at >= recent
        )
    )
    finished = counts.get(MatchState.FINISHED, 0)
    failed = counts.get(MatchState.FAILED, 0)
    return (
        f"[{time.strftime('%H:%M')}] {finished} matches played (+{played_now} in the last"
        f" {since_s} s) · {counts.get(MatchState.QUEUED, 0)} queued,"
        f" {counts.get(MatchState.RUNNING, 0)} running · {failed} failed (+{failed_now})"
    )

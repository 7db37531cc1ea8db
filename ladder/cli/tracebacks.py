"""A seat's stderr as its author knows the files: the user's paths, not the sandbox's.

Inside the sandbox a bot's folder is `/bot` (with `--unsafe-no-sandbox`, a slot folder
under a `sbx-` pool directory), so a traceback says `File "/bot/bot.py"`. The local
runners show it with the path the user passed instead, so an editor or a terminal can
jump to the line. What the service stores is left as the sandbox wrote it.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from workers import BotSource, Outcome

# The bot's folder as a bot process sees it: `/bot` in bubblewrap, or a pool slot's
# `.../sbx-XXXX/bN` without it; then an optional path inside that folder.
SANDBOX_FOLDER = re.compile(
    r"(?:/[^\s\"']*/sbx-[^/\s\"']+/b\d+|(?<![\w/.-])/bot)(?![\w.-])(?P<rest>/[\w./-]*)?"
)


def given_path(source: BotSource) -> Path:
    """The path to show for a bot: as the user typed it, or a house bot's own file."""
    given = Path(source.label)
    try:
        same = given.resolve() == Path(source.path).resolve()
    except (OSError, TypeError):
        same = False
    return given if same else Path(source.path)


# A traceback's frame line names its file so: the only place a bot's own stderr is
# rewritten (what else the bot prints is its own, shown as it printed it).
FRAME = re.compile(r'(File ")([^"\n]+)(")')


def frames_as_given(text: str, source: BotSource) -> str:
    """`text` with the files of its traceback frames put as the user's, nothing else."""
    return FRAME.sub(lambda m: m.group(1) + as_given(m.group(2), source) + m.group(3), text)


def as_given(text: str, source: BotSource) -> str:
    """`text` with the sandbox's paths to the bot's files put as the user's."""
    path = given_path(source)
    folder_bot = path.suffix == ".zip" or path.is_dir()

    def local(match: re.Match) -> str:
        rest = (match.group("rest") or "").strip("/")
        if folder_bot:  # a folder, or a zip (shown like zipimport: `bot.zip/helper.py`)
            return str(path / rest) if rest else str(path)
        if rest == "bot.py":  # a one-file bot is staged as bot.py whatever its name
            return str(path)
        return str(path.parent / rest) if rest else str(path.parent)

    return SANDBOX_FOLDER.sub(local, text)


def outcome_as_given(outcome: Outcome, seating: list[BotSource]) -> Outcome:
    """The outcome with each seat's traceback frames and error reason in the user's paths
    (the rest of a stderr is what the bot printed, left as it printed it: a bot's own
    account of its files must read the same in every mode)."""

    def each(texts: tuple[str | None, ...], rewrite) -> tuple[str | None, ...]:
        return tuple(
            None if text is None else rewrite(text, source)
            for text, source in zip(texts, seating, strict=True)
        )

    # The runner's reasons are ours to word; the stderr is the bot's, bar its frames.
    return dataclasses.replace(
        outcome,
        stderr=each(outcome.stderr, frames_as_given),
        errors=each(outcome.errors, as_given),
    )

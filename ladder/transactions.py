"""One unit of work per request, task and command: the caller opens it and commits it.

Services flush and lock but do not commit; the view, task or CLI command that calls
them wraps the call in `unit_of_work(session)`, which commits at the end of the
block (sending what the services announced, `ladder.broker.announce`) and rolls
back if the block raises. The few services that need transactions of their own
(the worker's entry points, the throttles that must commit before a password is
checked) say so in their docstrings and are called outside any unit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sqlalchemy.orm import Session

_DEPTH = "ladder.unit_of_work"  # session.info key: set while a unit is open


@contextlib.contextmanager
def unit_of_work(session: Session) -> Iterator[Session]:
    """Commit what the block does on `session`, or roll it all back if it raises.

    A read transaction begun before the block (Flask-Login's user loader reads the
    session before a view runs) becomes part of the unit: the commit ends it too, which
    is why this is not `session.begin()` (that raises when a transaction has begun).
    Units do not nest: a second one on the same session is a mistake (a service that
    owns its transaction called inside a caller's unit, say) and raises RuntimeError.
    """
    if session.info.get(_DEPTH):
        raise RuntimeError(
            "a unit of work is already open on this session: units do not nest; a service"
            " that owns its transaction is called outside any unit"
        )
    if not session.in_transaction():
        session.begin()  # so what is announced inside waits for the commit
    session.info[_DEPTH] = 1
    try:
        yield session
    except BaseException:
        session.rollback()
        raise
    else:
        session.commit()
    finally:
        session.info.pop(_DEPTH, None)


def in_unit(session: Session) -> bool:
    """Whether a unit of work is open on `session` (its caller will commit)."""
    return bool(session.info.get(_DEPTH))

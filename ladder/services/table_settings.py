"""A bot owner's setting for live tables: whether others may seat the bot against people
(`bots.human_play`, read by `services.tables` when a table is made)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ladder.errors import Forbidden
from ladder.models import Bot, User
from ladder.services import bot_changes
from ladder.services.bots import get_bot


def set_human_play(session: Session, user: User, bot_id: int, allowed: bool) -> Bot:
    """Let people seat `bot_id` at their live tables, or stop them (its owner only).
    Tables already made keep their bots."""
    bot = get_bot(session, bot_id)
    if bot.owner_id != user.id:
        raise Forbidden("only the bot's owner can choose who plays against it")
    bot.human_play = bool(allowed)
    bot_changes.bots_changed(session, [bot.id])  # its page says whether people may
    session.flush()
    return bot

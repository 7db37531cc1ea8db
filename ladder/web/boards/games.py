"""What a game page shows: its rules (RULES.md as HTML), its bot API and an example turn.

Read from the engine (pure, so safe to call) and from the starter bot file;
the starter bot is read as text, never imported.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from markupsafe import Markup

import engine
from ladder.errors import NotFound, ServiceError
from ladder.services.bots import check_game
from ladder.web import markdown


def known_game(name: str) -> str:
    """`name` if it is a registered game, else 404 naming it (a game in a URL names a page)."""
    try:
        return check_game(name)
    except ServiceError as exc:
        raise NotFound(str(exc)) from None


def rules_path(name: str) -> Path | None:
    """The game's RULES.md, beside its engine package, if there is one."""
    game = engine.get_game(name)
    module = sys.modules.get(game.factory.__module__)
    if module is None or not getattr(module, "__file__", None):
        return None
    here = Path(module.__file__).resolve().parent
    for folder in (here, here.parent):
        path = folder / "RULES.md"
        if path.is_file():
            return path
        if folder.name == name:
            break
    return None


def rules_html(name: str) -> Markup | None:
    """The game's RULES.md as safe HTML under the page's own heading (rendered once a process)."""
    path = rules_path(name)
    return None if path is None else markdown.render_file(path, shift=1)


def example_turn(name: str) -> dict:
    """The first decision of a small game: the view and a few legal actions, as JSON text."""
    game = engine.get_game(name)
    state = game.new_game(game.min_players, seed=1)
    seat = state.current_player()
    legal = state.legal_actions()
    return {
        "seat": seat,
        "view": json.dumps(state.view(seat), indent=2, sort_keys=True),
        "legal": json.dumps(legal[:6], indent=2, sort_keys=True),
        "legal_count": len(legal),
    }


def starter_path(starter_dir: str, name: str) -> Path | None:
    """bots/starter/<game>/bot.py if it exists."""
    path = Path(starter_dir) / name / "bot.py"
    return path if path.is_file() else None


def game_info(name: str) -> dict:
    game = engine.get_game(name)
    return {
        "name": game.name,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "version": game.version,
        "options": dict(game.option_defaults),
    }

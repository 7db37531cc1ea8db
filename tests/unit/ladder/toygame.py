"""A tiny game registered only in the web tests, so they need no real game.

Each seat in turn adds 1, 2 or 3 to its total, for two rounds; highest total
wins.
"""

from __future__ import annotations

from engine.core import Game, State

ROUNDS = 2


class ToyState(State):
    game_name = "toyrace"
    engine_version = "1"

    def __init__(self, num_players: int, seed: int, options: dict | None) -> None:
        super().__init__(num_players, seed, options)
        self.totals = [0] * num_players
        self.turn = 0

    def current_player(self) -> int | None:
        return None if self.is_over() else self.turn % self.num_players

    def _legal_actions(self) -> list[dict]:
        return [{"add": n} for n in (1, 2, 3)]

    def _apply(self, action: dict) -> None:
        self.totals[self.turn % self.num_players] += action["add"]
        self.turn += 1

    def view(self, seat: int) -> dict:
        return {"seat": seat, "totals": list(self.totals)}

    def is_over(self) -> bool:
        return self.turn >= ROUNDS * self.num_players

    def _scores(self) -> list:
        return list(self.totals)


GAME = Game(
    name="toyrace",
    min_players=2,
    max_players=4,
    version="1",
    factory=ToyState,
    option_defaults={},
)

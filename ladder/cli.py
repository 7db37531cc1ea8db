"""The `ladder` command line."""

from __future__ import annotations

import random

import click
from rich.console import Console
from rich.table import Table

import engine


@click.group()
def main() -> None:
    """Tradewinds: a bot ladder for Manila, Meuterer and Caravelas."""


@main.command()
@click.option("--seed", type=int, default=1, show_default=True)
def demo(seed: int) -> None:
    """Play one random-move game of every registered game and show the results."""
    console = Console()
    table = Table(title="Tradewinds demo: random players")
    for column in ("game", "players", "decisions", "scores", "ranks"):
        table.add_column(column)
    for name in engine.game_names():
        game = engine.get_game(name)
        players = game.max_players
        state = game.new_game(players, seed=seed)
        chooser = random.Random(seed)
        while not state.is_over():
            state.apply(chooser.choice(state.legal_actions()))
        result = state.result()
        table.add_row(
            name, str(players), str(len(state.history)), str(result["scores"]), str(result["ranks"])
        )
    console.print(table)

"""A corpus of recorded matches, per game, rules version, table size and option, with
a digest of everything each step showed, so a faster engine is proved to replay
every record of every version byte for byte.

The corpus file (`corpus/replays.json.gz`) is written once from the engine as it
stood and then only read: `python -m tests.unit.engine.replay_corpus` writes it
anew, which is right only when the rules change on purpose (a new version, whose
records are added beside the old ones).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from pathlib import Path

import engine

CORPUS = Path(__file__).with_name("corpus") / "replays.json.gz"
SEEDS = (3, 11)


def cases():
    """(game, version, players, options, seed) for every record the corpus holds."""
    for name in engine.game_names():
        game = engine.get_game(name)
        option_sets = [{}] + [
            {key: True} for key, value in sorted(game.option_defaults.items()) if value is False
        ]
        for version in (game.version, *game.replays):
            for players in range(game.min_players, game.max_players + 1):
                for options in option_sets:
                    for seed in SEEDS:
                        yield name, version, players, options, seed


def _dump(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def step_digest(state, digest) -> None:
    """Add what the state shows now to `digest`: seat on move, legal list, every view."""
    digest.update(_dump([state.current_player(), state.is_over()]))
    if not state.is_over():
        digest.update(_dump(state.legal_actions()))
    for seat in range(state.num_players):
        digest.update(_dump(state.view(seat)))
    digest.update(_dump(state.spectate()))


def play_random(name: str, version: str, players: int, options: dict, seed: int) -> dict:
    """A random game under the rules of `version`: its record and the digest of every step."""
    state = engine.get_game(name).new_game(players, seed=seed, options=options, version=version)
    chooser = random.Random(seed * 7919 + players)
    digest = hashlib.sha256()
    step_digest(state, digest)
    while not state.is_over():
        state.apply(chooser.choice(state.legal_actions()))
        step_digest(state, digest)
    return {"record": state.record(), "digest": digest.hexdigest()}


def replay_digest(record: dict) -> tuple[dict | None, str]:
    """Replay `record` step by step: the final result (None unfinished) and the digest."""
    state = engine.replay_start(record)
    digest = hashlib.sha256()
    step_digest(state, digest)
    for seat, action in record["actions"]:
        assert seat == state.current_player()
        state.apply(action)
        step_digest(state, digest)
    return (state.result() if state.is_over() else None), digest.hexdigest()


def load() -> list[dict]:
    with gzip.open(CORPUS, "rt", encoding="utf-8") as stream:
        return json.load(stream)


def write() -> None:
    entries = [play_random(*case) for case in cases()]
    CORPUS.parent.mkdir(exist_ok=True)
    with gzip.GzipFile(CORPUS, "wb", mtime=0) as stream:
        stream.write(json.dumps(entries, sort_keys=True).encode())
    print(f"{len(entries)} records written to {CORPUS}")


if __name__ == "__main__":
    write()

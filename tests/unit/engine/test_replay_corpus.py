"""Every recorded match of the corpus still replays to the same result, step by step.

The corpus holds random games of every game, rules version, table size and option,
each with a digest of what every step showed (seat on move, legal list, every
seat's view, the spectator's): an engine change that alters any of it, for any
version still replayed, fails here.
"""

from __future__ import annotations

import pytest

import engine
from tests.unit.engine import replay_corpus

ENTRIES = replay_corpus.load()


def _id(entry: dict) -> str:
    record = entry["record"]
    options = ",".join(key for key, on in sorted(record["options"].items()) if on) or "plain"
    return f"{record['engine_version']}-{record['players']}p-{options}-s{record['seed']}"


def test_the_corpus_covers_every_version_table_size_and_option():
    recorded = {
        (e["record"]["game"], e["record"]["engine_version"], e["record"]["players"])
        for e in ENTRIES
    }
    wanted = {(name, version, players) for name, version, players, _, _ in replay_corpus.cases()}
    assert recorded == wanted
    assert len(ENTRIES) == len(list(replay_corpus.cases()))


@pytest.mark.parametrize("entry", ENTRIES, ids=[_id(e) for e in ENTRIES])
def test_a_recorded_match_replays_byte_for_byte(entry):
    record = entry["record"]
    result, digest = replay_corpus.replay_digest(record)
    assert result == record["result"]
    assert digest == entry["digest"]
    assert engine.replay(record).record() == record


def test_a_changed_action_is_noticed():
    """The digest is not blind: one action changed, the same number of steps, another digest."""
    record = next(e for e in ENTRIES if e["record"]["game"] == "manila")["record"]
    state = engine.replay_start(record)
    for _seat, action in record["actions"][:5]:
        state.apply(action)
    played = record["actions"][5]
    other = next(a for a in state.legal_actions() if a != played[1])
    same = dict(record, actions=record["actions"][:6])
    changed = dict(record, actions=[*record["actions"][:5], [played[0], other]])
    assert replay_corpus.replay_digest(same)[1] != replay_corpus.replay_digest(changed)[1]

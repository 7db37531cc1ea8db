"""How a tournament is scheduled and scored, in words, for people: the one text the
tournament pages and `ladder tournament run --help` show.

Every number in it comes from the functions the core itself uses (`default_scoring`,
`mean_points`, `default_table_size`, `roundrobin.default_length`, `swiss.default_rounds`,
`elimination.default_advance`), so the text cannot say one thing while the code does
another; tests/unit/ladder/tournaments/test_rules.py ties the words to those numbers.
`parts()` gives the text as plain data; `help_text()` lays it out for Click's help.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import engine
from ladder.tournaments import elimination, roundrobin, swiss
from ladder.tournaments.scoring import default_scoring, mean_points, points_for_ranks
from ladder.tournaments.tournament import DEFAULT_TABLE_SIZE, default_table_size

SIZES = (2, 3, 4, 5)  # the table sizes the core schedules (a game allows some of them)
EXAMPLE_FIELDS = {"round-robin": (4, 5, 6, 8, 12, 16), "swiss": (4, 8, 16, 32, 64)}
PLACES = ("1st", "2nd", "3rd", "4th", "5th")


@dataclass(frozen=True)
class Part:
    """One part of the text: a title, paragraphs, then optionally a table (its first row
    the header), numbered steps, and closing notes."""

    title: str
    lines: tuple[str, ...]
    table: tuple[tuple[str, ...], ...] = ()
    steps: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def number(value: Fraction | float) -> str:
    """A number as people read it: whole numbers bare, others to two places at most."""
    if value == int(value):
        return str(int(value))
    return f"{float(value):.2f}".rstrip("0")


def points_table() -> tuple[tuple[str, ...], ...]:
    """Points per place for each table size, as rows under a header."""
    rows: list[tuple[str, ...]] = [("Seats", *PLACES)]
    for size in SIZES:
        points = [number(p) for p in default_scoring(size)]
        rows.append((str(size), *points, *("",) * (len(PLACES) - size)))
    return tuple(rows)


def bye_points(size: int, duplicate: bool = False) -> Fraction:
    """What a Swiss bye scores at tables of `size` with the default points (as
    `Tournament.bye_value`: the mean points of a match, times the matches of a set)."""
    return mean_points(default_scoring(size)) * (size if duplicate else 1)


def _game_sizes() -> str:
    found = []
    for name in engine.game_names():
        game = engine.get_game(name)
        low, high = max(game.min_players, SIZES[0]), min(game.max_players, SIZES[-1])
        found.append(f"{name} {low} to {high}")
    return ", ".join(found)


def _examples(fmt: str, size: int) -> str:
    if fmt == "round-robin":
        counts = [(n, roundrobin.default_length(n, size)) for n in EXAMPLE_FIELDS[fmt]]
        said = [f"{n} bots, {k} table{'s' * (k != 1)} each" for n, k in counts]
    else:
        counts = [(n, swiss.default_rounds(n, size)) for n in EXAMPLE_FIELDS[fmt]]
        said = [f"{n} bots, {k} rounds" for n, k in counts]
    return f"At tables of {size}: " + "; ".join(said) + "."


def parts(failed_match_score: float | None = None) -> list[Part]:
    """The whole text. `failed_match_score` (the site's: a match that could not be played
    counts as a tie with that game score) adds the site's rule for such a match."""
    four, three = default_scoring(4), default_scoring(3)
    tied = points_for_ranks((1, 1, 3), three)[0]
    advance = {size: elimination.default_advance(size) for size in SIZES}
    shown_mean = " + ".join(number(p) for p in four)
    tables = Part(
        "Tables and rounds",
        (
            f"A table seats 2 to 5 bots, within the game's range ({_game_sizes()}). Without a "
            f"table size a tournament uses tables of {DEFAULT_TABLE_SIZE}, or the nearest size "
            "the game and the number of entrants allow (three entrants play at a table of "
            f"{default_table_size(2, 5, 3)}).",
            "Round robin: every bot plays the same number of tables, and its rounds setting is "
            "that number (tables each bot plays, not rounds of the schedule). By default it is "
            "the fewest after which every pair can have met, (n − 1) / (t − 1) rounded up for "
            "n bots at tables of t, raised to a multiple of t / gcd(n, t) so that the tables "
            "come out even; for some fields a few tables more, where the shortest schedule "
            f"cannot let every pair meet about as often as any other. {_examples('round-robin', 4)}"
            " A round has as many full tables as the field fills; whoever is left over sits "
            "that round out, scores nothing for it and plays the table in another round.",
            "Swiss: by default log_t(n) rounded up, plus 2 rounds (enough for a clear leader "
            f"to emerge and be tested twice). {_examples('swiss', 4)} Round 1 seeds by ladder "
            "skill; each later round seats bots of similar points together, avoiding a "
            "repeat meeting wherever it can.",
            "Elimination: no rounds setting; the top k of each table advance until one final "
            f"table decides the places. By default k is half the table, rounded down, at least "
            f"1 (tables of 2 and 3: {advance[2]}; of 4 and 5: {advance[4]}).",
        ),
    )
    points = Part(
        "Points per place",
        ("Each match gives every seat points for its place at the table:",),
        table=points_table(),
        notes=(
            "Last place scores nothing, and the step up to first place is the biggest: "
            "winning, not just placing, is what a tournament rewards.",
            "Bots that share a place share the points of the places they cover: two bots "
            f"tied first at a table of 3 get ({number(three[0])} + {number(three[1])}) / 2 = "
            f"{number(tied)} each.",
            "A bot that faults (a timeout, crash, invalid or illegal move, or a limit hit) has "
            "its seat played out by a simple built-in policy and ranks below every bot that "
            "did not fault. The standings count its faults.",
        ),
    )
    duplicate = Part(
        "Duplicate sets",
        (
            "With duplicate sets a table plays one match per seat, all with one seed (the "
            "same deal, the same dice), the seats rotated so that each bot plays from each "
            "seat once. Each match scores its own points: a table of 4 is worth "
            f"{number(four[0] * 4)} points to a bot that wins all four, and the standings "
            "count every match.",
        ),
    )
    byes = Part(
        "Byes",
        (
            "Swiss: when the table size does not divide the field, the bots left over sit the "
            "round out: the lowest placed among those with the fewest byes so far, so nobody "
            "has a second bye before everyone has had one. A bye scores what an average "
            f"match does, the mean of the table's points: ({shown_mean}) / 4 = "
            f"{number(bye_points(4))} at tables of 4, {number(bye_points(4, True))} with "
            f"duplicate sets (a whole set); {number(bye_points(2))} at 2, "
            f"{number(bye_points(3))} at 3, {number(bye_points(5))} at 5. It has no game score "
            "and counts as no match, so it leaves the mean score alone.",
            "Round robin: sitting a round out scores nothing; every bot still plays the same "
            "number of tables.",
            "Elimination: byes go to the best seeds (by ladder skill) and advance them "
            "without a match.",
        ),
    )
    ties = Part(
        "Standings and tie-breaks",
        ("Bots are ranked by, in order:",),
        steps=(
            "points;",
            "mean game score per match played (the game's own score: money in Manila, points "
            "in Meuterer and Caravelas);",
            "head to head among the bots still tied: one up for each time a bot finished "
            "above another of them at a match, one down for each time below;",
            "a coin: an order drawn from the tournament's seed, the same every time.",
        ),
        notes=(
            "Elimination ranks first by the round reached, then by the place at that round's "
            "table (a bye, or a table still playing, counts as first), then by that table's "
            "points, then as above. A table's places are decided the same way: points over "
            "its matches, mean score, head to head, coin.",
        ),
    )
    found = [tables, points, duplicate, byes, ties]
    if failed_match_score is not None:
        share = number(mean_points(four))
        found.append(
            Part(
                "A match that could not be played",
                (
                    "On this site, a tournament match that fails for good (not a bot's "
                    "fault: its page says why) counts as a tie of every seat, so the "
                    f"tournament goes on: each seat shares the table's points ({share} at "
                    f"a table of 4), is counted as a win, and scores "
                    f"{number(failed_match_score)} in the game.",
                ),
            )
        )
    return found


def help_text() -> str:
    """`parts()` laid out for Click's help: titles and paragraphs Click may rewrap, the
    points table kept as it is (`\\b`)."""
    out = ["How tournaments are scheduled and scored (the site's tournaments too):"]
    for part in parts():
        out.append(part.title.upper())
        out.extend(part.lines)
        if part.table:
            widths = [max(len(row[i]) for row in part.table) for i in range(len(part.table[0]))]
            rows = ["  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True))
                    for row in part.table]  # fmt: skip
            out.append("\b\n" + "\n".join(row.rstrip() for row in rows))
        out.extend(f"{i}. {step}" for i, step in enumerate(part.steps, start=1))
        out.extend(part.notes)
    return "\n\n".join(out)

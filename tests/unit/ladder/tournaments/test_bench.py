"""bench/tournaments.py keeps working: its variants play equal matches, its figures are sane."""

from bench.tournaments import measure, simulated, variants
from ladder.tournaments import Tournament, play


def test_variants_of_a_format_play_the_same_number_of_matches():
    for fmt in ("round-robin", "swiss"):
        counts = {
            label: measure(fmt, settings, 8, 4, 1, 15.0, 2.0, 2.0)[0]
            for label, settings in variants(fmt, 8, 4)
        }
        first, *rest = counts.values()
        assert len(set(rest)) == 1 and rest[0] == 4 * first, counts


def test_without_noise_the_best_always_wins_and_the_order_is_true():
    matches, best, tau = measure("round-robin", {}, 8, 2, 3, 15.0, 0.0, 0.0)  # pairs: all meet
    assert matches > 0 and best == 1.0 and tau == 1.0


def test_a_duplicate_set_gives_each_seat_the_same_luck():
    t = Tournament("manila", tuple(range(4)), "round-robin", table_size=4, duplicate=True)
    table = t.schedule()[0].tables[0]
    strength = dict.fromkeys(range(4), 0.0)
    results = dict(simulated(strength, luck=5.0, form=0.0)(list(table.matches)))
    # No skill and no form: the seat alone decides, so each rotation shifts the ranks.
    ranks = [results[m].ranks for m in table.matches]
    assert all(r == ranks[0] for r in ranks)
    assert len(play(t, simulated(strength, 5.0, 0.0))) == t.total_matches()

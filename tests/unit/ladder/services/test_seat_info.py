"""Validation seats its house bots as a ladder match does (issue 28): same names,
owner and versions in `info["seats"]`, so a bot cannot tell the two apart."""

from __future__ import annotations

from sqlalchemy import select

from ladder.models import Bot, BotVersion, User
from ladder.services import matches, validation
from ladder.services.house import seed_house_bots
from tests.unit.ladder.conftest import make_active_bot
from workers import JobSeat

WHO = ("name", "owner", "version")


def who(seat: JobSeat) -> dict:
    return {key: getattr(seat, key) for key in WHO}


def house_random(session, config, game="toyrace") -> BotVersion:
    return session.scalars(
        select(BotVersion)
        .join(Bot)
        .join(User)
        .where(User.username == config["HOUSE_USER"], Bot.game == game, Bot.name == "random")
    ).one()


def test_validation_seats_the_house_random_bot_as_a_ladder_match_does(session, config, alice):
    quiet = config  # no broker in unit tests: nothing is announced
    seed_house_bots(session, quiet, "a-demo-password")
    mine = make_active_bot(session, quiet, alice, name="v", game="toyrace")
    house = house_random(session, config)
    seated = validation.house_seat(session, config, "toyrace", "random")
    assert seated == {"name": "random", "owner": config["HOUSE_USER"], "version": house.number}
    players = len(validation.validation_jobs(mine)[0][1].seats)
    ladder = matches.create_match(
        session, quiet, "toyrace", [mine.id] + [house.id] * (players - 1), ranked=False
    )
    on_ladder = [who(s) for s in matches.match_job(session, quiet, ladder.id).seats]
    for seat, job in validation.validation_jobs(mine, seated)[:1]:
        in_validation = [who(s) for s in sorted(job.seats, key=lambda s: s.seat)]
        # The same seats, the new bot's moved to where validation puts it.
        expected = on_ladder[1:]
        expected.insert(seat, on_ladder[0])
        assert in_validation == expected


def test_without_seeded_house_bots_validation_still_names_the_house_account(session, config):
    seated = validation.house_seat(
        session, config.with_overrides({"HOUSE_USER": "harbour"}), "toyrace", "random"
    )
    assert seated == {"name": "random", "owner": "harbour", "version": 1}

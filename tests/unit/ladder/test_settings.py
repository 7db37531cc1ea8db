"""ladder.settings.Settings: defaults in one place, the environment as today, overrides, frozen."""

from __future__ import annotations

import dataclasses

import pytest

from ladder import create_app
from ladder.extensions import app_settings
from ladder.settings import KEYS, ROOT, VAR, Settings

# Every setting's key and its default for a LADDER_VAR of /srv/var: adding a setting
# means adding it here, so a default changed by accident shows.
DEFAULTS = {
    "SECRET_KEY": "",
    "DATABASE_URL": "sqlite:////srv/var/ladder.sqlite3",
    "ARTIFACT_STORE": "database",
    "ARTIFACT_DIR": "/srv/var/artifacts",
    "BOT_CACHE_DIR": "/srv/var/bot-cache",
    "BOT_CACHE_BYTES": 256 * 1024 * 1024,
    "REPLAY_DIR": "/srv/var/replays",
    "UPLOAD_DIR": "/srv/var/uploads",
    "STARTER_DIR": str(ROOT / "bots" / "starter"),
    "KIT_DIR": "/srv/var/kit",
    "MAX_BOT_BYTES": 512 * 1024,
    "MAX_UNZIPPED_BYTES": 8 * 1024 * 1024,
    "MAX_ZIP_FILES": 200,
    "UPLOADS_PER_HOUR": 20,
    "REFUSED_UPLOADS_PER_HOUR": 60,
    "PAGE_SIZE": 50,
    "PAGE_CACHE_S": 5,
    "PAGE_CACHE_DONE_S": 300,
    "LOGIN_WINDOW_S": 900,
    "LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS": 5,
    "LOGIN_FAILURES_PER_ADDRESS": 20,
    "LOGIN_FAILURES_PER_ACCOUNT": 50,
    "REGISTRATIONS_PER_HOUR": 10,
    "CHALLENGES_PER_HOUR": 25,
    "CHALLENGES_IN_FLIGHT": 25,
    "TABLE_MOVE_MS": 300_000,
    "TABLE_MATCH_MS": 3_600_000,
    "TABLE_OPEN_PER_USER": 3,
    "TABLE_WORKERS": 4,
    "HOUSE_USER": "demo",
    "PROXY_HOPS": 0,
    "SESSION_COOKIE_SECURE": False,
    "OPEN_PLAY_TAU": 0.05,
    "REDIS_URL": None,
    "LADDER_IN_FLIGHT": 4,
    "TEST_SHARE": 0.25,
    "TEST_MAX_SETS": 100,
    "SCHEDULE_EVERY_S": 5,
    "LEASE_S": 30,
    "REQUEUE_AFTER_S": 300,
    "MAX_ATTEMPTS": 3,
    "PAUSE_AFTER_FAULTS": 5,
    "REPLAY_KEEP_DAYS": 30,
    "RATING_SHOWN": "online",
    "RESOLVE_EVERY_S": 86_400,
    "RESOLVE_WINDOW": 20_000,
    "TASK_TIME_LIMIT_S": 1800,
    "BOT_LIMITS": {},
    "UNSAFE_NO_SANDBOX": False,
}


def relocated(value: object) -> object:
    """A default as DEFAULTS writes it, for this checkout's var/ instead of /srv/var."""
    return value.replace("/srv/var", str(VAR)) if isinstance(value, str) else value


def test_every_field_has_its_default_and_one_variable():
    assert set(DEFAULTS) == KEYS
    found = Settings().as_config()
    assert found == {key: relocated(value) for key, value in DEFAULTS.items()}
    variables = Settings.variables()
    assert len(variables) == len(KEYS)  # no two fields read one variable
    # Each reads the variable of its key, but for the one Flask's name was taken for.
    renamed = {env: name for env, name in variables.items() if env != name.upper()}
    assert renamed == {"COOKIE_SECURE": "session_cookie_secure"}


def test_an_empty_environment_gives_the_defaults_under_its_var(tmp_path):
    found = Settings.from_env({"LADDER_VAR": "/srv/var", "SECRET_KEY": "k"})
    assert found.as_config() == {**DEFAULTS, "SECRET_KEY": "k"}
    # An empty variable is an unset one, whatever its type.
    empty = {env: "" for env in Settings.variables()}
    assert Settings.from_env({**empty, "LADDER_VAR": "/srv/var", "SECRET_KEY": "k"}) == found


def test_without_a_secret_one_is_made_once_under_var(tmp_path):
    first = Settings.from_env({"LADDER_VAR": str(tmp_path)}).secret_key
    assert len(first) == 64 and (tmp_path / "secret_key").read_text() == first
    assert Settings.from_env({"LADDER_VAR": str(tmp_path)}).secret_key == first
    assert first not in repr(Settings.from_env({"LADDER_VAR": str(tmp_path)}))


@pytest.mark.parametrize(
    "name, raw, attribute, value",
    [
        ("LEASE_S", "45", "lease_s", 45),
        ("OPEN_PLAY_TAU", "0.1", "open_play_tau", 0.1),
        ("REDIS_URL", "redis://h/0", "redis_url", "redis://h/0"),
        ("ARTIFACT_STORE", "directory", "artifact_store", "directory"),
        (
            "BOT_LIMITS",
            " move_ms=500, bank_ms = 5000 ",
            "bot_limits",
            {"move_ms": 500, "bank_ms": 5000},
        ),
        ("COOKIE_SECURE", "1", "session_cookie_secure", True),
        ("COOKIE_SECURE", "true", "session_cookie_secure", True),
        ("COOKIE_SECURE", "yes", "session_cookie_secure", True),
        ("COOKIE_SECURE", "on", "session_cookie_secure", False),
        ("UNSAFE_NO_SANDBOX", "1", "unsafe_no_sandbox", True),
        ("UNSAFE_NO_SANDBOX", "0", "unsafe_no_sandbox", False),
        ("HOUSE_USER", "harbour", "house_user", "harbour"),
    ],
)
def test_variables_are_read_as_today(name, raw, attribute, value):
    assert getattr(Settings.from_env({"SECRET_KEY": "k", name: raw}), attribute) == value


@pytest.mark.parametrize(
    "name, raw, message",
    [
        (
            "MAX_BOT_BYTES",
            "lots",
            "environment variable MAX_BOT_BYTES must be an integer, not 'lots'",
        ),
        ("LEASE_S", "1.5", "environment variable LEASE_S must be an integer, not '1.5'"),
        (
            "ARTIFACT_STORE",
            "Database",
            "environment variable ARTIFACT_STORE must be 'database' or 'directory', not 'Database'",
        ),
        ("BOT_LIMITS", "move_ms", "BOT_LIMITS wants name=integer pairs, not 'move_ms'"),
        ("BOT_LIMITS", "move_ms=fast", "BOT_LIMITS wants name=integer pairs, not 'move_ms=fast'"),
        ("OPEN_PLAY_TAU", "some", "could not convert string to float: 'some'"),
    ],
)
def test_bad_values_are_refused_at_start_with_todays_messages(name, raw, message):
    with pytest.raises(ValueError) as refused:
        Settings.from_env({"SECRET_KEY": "k", name: raw})
    assert str(refused.value) == message


def test_settings_are_frozen():
    found = Settings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.lease_s = 1  # type: ignore[misc]
    limited = found.with_overrides({"BOT_LIMITS": {"move_ms": 5}})
    with pytest.raises(TypeError):
        limited.bot_limits["move_ms"] = 6  # type: ignore[index]


def test_overrides_take_upper_case_keys_and_skip_what_is_not_a_setting():
    base = Settings()
    changed = base.with_overrides({"LADDER_IN_FLIGHT": 2, "TESTING": True, "SERVER_NAME": "x"})
    assert changed.ladder_in_flight == 2 and base.ladder_in_flight == 4
    assert changed == dataclasses.replace(base, ladder_in_flight=2)
    assert base.with_overrides(base.as_config()) == base
    assert base.with_overrides({"OPEN_PLAY_TAU": 0}).open_play_tau == 0  # an int for a float


@pytest.mark.parametrize(
    "overrides, error, message",
    [
        (
            {"LADDER_INFLIGHT": 2},
            ValueError,
            "unknown setting LADDER_INFLIGHT: did you mean LADDER_IN_FLIGHT?",
        ),
        ({"lease_s": 2}, ValueError, "unknown setting lease_s: did you mean LEASE_S?"),
        (
            {"COOKIE_SECURE": True},
            ValueError,
            "COOKIE_SECURE is an environment variable: the setting is SESSION_COOKIE_SECURE",
        ),
        ({"LEASE_S": "30"}, TypeError, "setting LEASE_S wants int, not '30'"),
        ({"PAGE_SIZE": True}, TypeError, "setting PAGE_SIZE wants int, not True"),
        ({"REDIS_URL": 6379}, TypeError, "setting REDIS_URL wants str | None, not 6379"),
    ],
)
def test_a_misspelt_key_or_a_wrong_type_is_refused(overrides, error, message):
    with pytest.raises(error) as refused:
        Settings().with_overrides(overrides)
    assert str(refused.value) == message


def test_a_key_close_to_a_setting_passes_when_another_owner_knows_it():
    # Flask's SESSION_COOKIE_SAMESITE is one letter-swap from our SESSION_COOKIE_SECURE.
    with pytest.raises(ValueError, match="did you mean SESSION_COOKIE_SECURE"):
        Settings().with_overrides({"SESSION_COOKIE_SAMESITE": "Strict"})
    assert Settings().with_overrides(
        {"SESSION_COOKIE_SAMESITE": "Strict"}, others={"SESSION_COOKIE_SAMESITE"}
    )


def test_the_app_keeps_its_settings_and_mirrors_them_into_its_config(config):
    app = create_app({**config, "LADDER_IN_FLIGHT": 2, "SESSION_COOKIE_SAMESITE": "Strict"})
    found = app_settings(app)
    assert isinstance(found, Settings) and found.ladder_in_flight == 2
    assert {key: app.config[key] for key in KEYS} == found.as_config()
    assert app.config["TESTING"] is True and app.config["SESSION_COOKIE_SAMESITE"] == "Strict"
    with app.app_context():
        assert app_settings() is found
    with pytest.raises(ValueError, match="did you mean LADDER_IN_FLIGHT"):
        create_app({**config, "LADDER_INFLIGHT": 2})


def test_var_is_the_checkouts_own_or_else_under_the_current_folder(tmp_path, monkeypatch):
    from ladder.settings import default_var

    checkout, site_packages, here = tmp_path / "src", tmp_path / "site-packages", tmp_path / "cwd"
    for folder in (checkout, site_packages, here):
        folder.mkdir()
    (checkout / "pyproject.toml").write_text("")
    monkeypatch.chdir(here)
    assert default_var(checkout) == checkout / "var"
    assert default_var(site_packages) == here / "var"  # never inside an installed package
    assert VAR == ROOT / "var"  # the tests run from a checkout

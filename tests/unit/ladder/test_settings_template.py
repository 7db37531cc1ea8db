"""deploy/tradewinds.env.example is checked against ladder.settings.Settings.

The template stays written by hand (its grouping and its one-line notes are for
operators), and these tests hold it to the class: a setting added without a line
in the template, a commented default that is not the default, or a line nothing
reads fails here. test_deploy_files.py checks the rest (a shell reads it as systemd
does, commented values are the values in effect under the template's LADDER_VAR).
"""

from __future__ import annotations

import dataclasses

from ladder.settings import Settings
from tests.unit.deploy.reading import (
    UNITS,
    environment_read_by_code,
    install_paths,
    template_settings,
    unit_defaults,
)

# Read by `Settings.from_env` without being a setting: the folder that moves the defaults.
FOLDER = "LADDER_VAR"


def _fields() -> dict[str, dataclasses.Field]:
    return {f.metadata["env"].name: f for f in dataclasses.fields(Settings)}


def test_every_setting_has_a_line_in_the_template():
    missing = sorted(set(Settings.variables()) - set(template_settings()))
    assert not missing, f"add a line to deploy/tradewinds.env.example for {missing}"


def test_a_commented_line_shows_the_default():
    # Folder defaults move with LADDER_VAR (test_deploy_files checks those under the
    # template's own); every other commented value must parse to the field's default.
    for name, field in _fields().items():
        active, value = template_settings()[name]
        variable = field.metadata["env"]
        if active or variable.under_var is not None:
            continue
        default = (
            field.default
            if field.default_factory is dataclasses.MISSING
            else field.default_factory()
        )
        # The template names the production checkout; the default is this one's.
        shown = variable.parse(name, install_paths(value)) if value else default
        assert shown == default, f"#{name}={value} in the template, but the default is {default!r}"


def test_the_template_names_no_variable_nobody_reads():
    # Besides the settings: the units' own variables and what workers/ reads (the sandbox).
    units = {name for unit in UNITS for name in unit_defaults(unit)}
    workers = {
        name
        for name, files in environment_read_by_code().items()
        if any(path.startswith("workers/") for path in files)
    }
    known = set(Settings.variables()) | {FOLDER} | units | workers
    stale = sorted(set(template_settings()) - known)
    assert not stale, f"nothing reads {stale}: drop them from the template"

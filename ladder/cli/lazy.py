"""A click group whose subcommands are imported only when they run.

The admin groups reach SQLAlchemy, Alembic and Flask; imported up front they made
every `ladder play` wait some 1.5 s before its first match, and `ladder --help`
as long. A lazy subcommand is named by "module:attribute" and carries its one-line
summary, so `ladder --help` lists it without importing it (a test holds each
summary to the command's own).
"""

from __future__ import annotations

import importlib

import click


class LazyGroup(click.Group):
    def __init__(
        self, *args, lazy_commands: dict[str, tuple[str, str]] | None = None, **kwargs
    ) -> None:
        """`lazy_commands`: name -> ("module:attribute", the command's one-line summary)."""
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_commands and cmd_name not in self.commands:
            path, _summary = self.lazy_commands[cmd_name]
            module, attribute = path.split(":")
            command = getattr(importlib.import_module(module), attribute)
            if not isinstance(command, click.Command):  # a wrong table entry
                raise TypeError(f"{path} is not a click command")
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's listing, with a lazy command's summary from the table (not imported)."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in self.lazy_commands and name not in self.commands:
                # Shortened to the column as click shortens a command's own help.
                summary = click.Command(name, help=self.lazy_commands[name][1])
                rows.append((name, summary.get_short_help_str(limit)))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

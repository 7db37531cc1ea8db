"""`ladder replay REPLAY BOT --seat N`: reproduce a seat's match locally, step by step.

REPLAY is a downloaded replay (`.json.gz` or `.json`), or a match id with
`--server URL`. The bot runs in the same sandbox as on the ladder, under the
recorded limits (but for `--move-ms`/`--bank-ms`), and gets the very `info`
its seat had (`workers.rerun`); the report
says at each of the seat's decisions whether the bot chose what was recorded,
and at the first divergence or fault prints the view, the legal actions, both
answers and the bot's stderr.
"""

from __future__ import annotations

import gzip
import json
import urllib.error
import urllib.request
from pathlib import Path

import click

from ladder.cli.options import house_owner, sandbox_options

STDERR_LINES = 40


def _compact(value) -> str:
    return json.dumps(value, separators=(", ", ": "), sort_keys=False)


def _error_message(exc: urllib.error.HTTPError) -> str | None:
    """The reason the server gave in its JSON error body (a 410: the replay expired)."""
    try:
        body = json.loads(exc.read(4096) or b"null")
    except (OSError, ValueError):
        return None
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, str) else None


def load_record(spec: str, server: str | None, token: str | None) -> dict:
    """The replay record named by REPLAY: a file, or a match id on `server`."""
    if server:
        if not spec.isdigit():
            raise click.BadParameter("with --server, REPLAY is a match id", param_hint="REPLAY")
        url = f"{server.rstrip('/')}/api/v1/matches/{int(spec)}/replay"
        request = urllib.request.Request(url)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                data = response.read()
        except urllib.error.HTTPError as exc:
            why = _error_message(exc)
            raise click.ClickException(
                f"{url} answered {exc.code} {exc.reason}" + (f": {why}" if why else "")
            ) from None
        except urllib.error.URLError as exc:
            raise click.ClickException(f"cannot reach {url}: {exc.reason}") from None
    else:
        path = Path(spec)
        if not path.is_file():
            raise click.BadParameter(f"no such file: {spec}", param_hint="REPLAY")
        data = path.read_bytes()
    try:
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        record = json.loads(data)
    except (OSError, EOFError, ValueError) as exc:
        raise click.ClickException(f"{spec} is not a replay (gzipped) JSON file: {exc}") from None
    if not isinstance(record, dict):
        raise click.ClickException(f"{spec} is not a replay record")
    return record


def step_line(step) -> str:
    if step.fault:
        return f"step {step.step:>5}  {step.fault}"
    mark = "same" if step.same else "DIFFERS"
    return f"step {step.step:>5}  {mark}: {_compact(step.answer)}"


def fallback_note(result, step: int) -> str:
    fault = result.recorded_fault
    if fault and step >= fault[0]:
        return " (the fallback's move: the seat had faulted)"
    return ""


def stop_report(result) -> list[str]:
    """What a bot author needs at the stop: view, legal actions, both answers, stderr."""
    lines = []
    last = result.steps[-1] if result.steps else None
    if result.ok:
        lines.append(f"All {len(result.steps)} decisions matched the recorded match.")
    elif last is not None and last.step < 0:
        lines.append(f"The bot did not start: {last.fault}.")
    elif last is not None:
        what = "its answer differs from the recorded one" if last.fault is None else last.fault
        lines += [
            f"Stopped at step {last.step}: {what}.",
            "The view:",
            json.dumps(last.view, indent=1),
            f"Legal actions ({len(last.legal)}):",
            *(f"  {_compact(action)}" for action in last.legal),
            f"Recorded: {_compact(last.recorded)}{fallback_note(result, last.step)}",
            f"The bot:  {_compact(last.answer) if last.answer is not None else '(no answer)'}",
        ]
    if result.recorded_fault:
        at, status, reason = result.recorded_fault
        because = f" ({reason})" if reason else ""
        lines.append(f"In the recorded match this seat faulted at step {at}: {status}{because}.")
    stderr = result.stderr.rstrip("\n")
    if stderr:
        lines.append("The bot's stderr (tail):")
        lines += ["  " + line for line in stderr.splitlines()[-STDERR_LINES:]]
    else:
        lines.append("The bot wrote nothing to stderr.")
    return lines


@click.command("replay")
@click.argument("replay")
@click.argument("bot")
@click.option("--seat", type=int, required=True, help="the seat the bot plays (0-based)")
@click.option(
    "--from-step",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="start asking the bot at this step of the record (earlier views are not sent)",
)
@click.option("--server", help="the ladder's URL, when REPLAY is a match id")
@click.option("--token", envvar="LADDER_TOKEN", help="API token for --server (or LADDER_TOKEN)")
@sandbox_options
def replay(replay, bot, seat, from_step, server, token, move_ms, bank_ms, unsafe_no_sandbox):
    """Run BOT as seat N on the views of a recorded match; stop at the first difference.

    Exits 0 when every decision matched the record, 1 at a divergence or a fault.
    """
    from ladder.cli.tracebacks import frames_as_given
    from workers import SandboxUnavailable, rerun, resolve, retry_stalled

    record = load_record(replay, server, token)
    try:
        source = resolve(bot, house_owner())
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="BOT") from None
    click.echo(
        f"Re-running {source.label} as seat {seat} of a {record.get('game')} match"
        f" (seed {record.get('seed')}, {record.get('players')} players,"
        f" {len(record.get('actions') or [])} steps), from step {from_step}."
    )
    try:
        # The recorded limits, but for those given on the command line.
        overrides = {"move_ms": move_ms, "bank_ms": bank_ms}
        overrides = {name: value for name, value in overrides.items() if value is not None}
        result = retry_stalled(
            lambda: rerun(record, source, seat, from_step, overrides, unsafe_no_sandbox)
        )
    except SandboxUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    result.stderr = frames_as_given(result.stderr, source)  # the user's file, not /bot/bot.py
    for step in result.steps:
        if step.step >= 0:
            click.echo(step_line(step))
    for line in stop_report(result):
        click.echo(line)
    raise SystemExit(0 if result.ok else 1)

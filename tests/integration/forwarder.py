"""A test's network cable: TCP on this namespace's 127.0.0.1, relayed to Unix sockets.

Run inside a worker host's network namespace, where the only address is the
loopback: `python -m tests.integration.forwarder postgres=/run/pg.sock redis=/run/redis.sock`.
For each NAME=PATH it listens on 127.0.0.1 (a free port the kernel picks),
prints one JSON line `{"NAME": port, ...}` once every listener is up, then
relays each connection to PATH. This process owns both ends of every relayed
connection, so killing it cuts the host off at once: new connections are
refused, and open ones are closed on both sides.

Standard library only: it runs from any folder, with nothing of ours imported.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys

CHUNK = 64 * 1024


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    """Copy bytes one way until the source ends or either side fails."""
    with contextlib.suppress(ConnectionError, OSError):
        while data := await source.read(CHUNK):
            sink.write(data)
            await sink.drain()


async def _relay(path: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One client connection: join it to a new connection to the Unix socket `path`."""
    try:
        far_reader, far_writer = await asyncio.open_unix_connection(path)
    except OSError as exc:
        print(f"forwarder: cannot reach {path}: {exc}", file=sys.stderr, flush=True)
        writer.close()
        return
    ways = [
        asyncio.ensure_future(_pipe(reader, far_writer)),
        asyncio.ensure_future(_pipe(far_reader, writer)),
    ]
    # Neither protocol we carry (PostgreSQL, Redis) half-closes: when one way ends,
    # the connection is over, so both sides are closed.
    await asyncio.wait(ways, return_when=asyncio.FIRST_COMPLETED)
    for way in ways:
        way.cancel()
    for end in (writer, far_writer):
        end.close()


def parse_routes(args: list[str]) -> dict[str, str]:
    """NAME=PATH arguments into {name: path}; SystemExit with usage for anything else."""
    routes = {}
    for arg in args:
        name, sep, path = arg.partition("=")
        if not sep or not name or not path:
            raise SystemExit(f"usage: forwarder NAME=UNIX_SOCKET_PATH ...  (not {arg!r})")
        routes[name] = path
    if not routes:
        raise SystemExit("usage: forwarder NAME=UNIX_SOCKET_PATH ...")
    return routes


async def serve(routes: dict[str, str]) -> None:
    """Listen for every route, announce the ports on stdout, then relay forever."""
    servers, ports = [], {}
    for name, path in routes.items():

        async def handle(reader, writer, path=path):
            await _relay(path, reader, writer)

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        servers.append(server)
        ports[name] = server.sockets[0].getsockname()[1]
    print(json.dumps(ports), flush=True)
    await asyncio.gather(*(server.serve_forever() for server in servers))


def main(argv: list[str] | None = None) -> None:
    asyncio.run(serve(parse_routes(sys.argv[1:] if argv is None else argv)))


if __name__ == "__main__":
    main()

"""gunicorn's logs (booting, workers, errors, and each request) as JSON lines, like the app's.

`ladder web` and `ladder run` pass `--logger-class ladder.web.gunicorn_log.JsonLogger`,
so every line a web process writes goes through the app's JsonFormatter: one
timestamp format, a level and the component `web` on each, access lines included
(gunicorn's access log format has no level, and its `%(t)s` is Apache's date).
"""

from __future__ import annotations

from gunicorn import glogging

from ladder.settings import JsonFormatter


class JsonLogger(glogging.Logger):
    """gunicorn's logger with both logs' handlers formatting JSON (component "web")."""

    def setup(self, cfg) -> None:
        super().setup(cfg)
        for handler in (*self.error_log.handlers, *self.access_log.handlers):
            handler.setFormatter(JsonFormatter("web"))

    def access(self, resp, req, environ, request_time) -> None:
        """One `request` record at INFO with the request's facts as fields."""
        if not self.cfg.accesslog:
            return
        atoms = self.atoms(resp, req, environ, request_time)
        status = str(atoms["s"])
        facts = {
            "method": atoms["m"],
            "path": atoms["U"],
            "status": int(status) if status.isdigit() else status,
            "ms": atoms["M"],
            "bytes": atoms["B"],
        }
        self.access_log.info("request", extra=facts)

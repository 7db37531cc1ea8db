"""gunicorn's own log (booting, workers, errors) as JSON lines, like the app's.

`ladder web` and `ladder run` pass `--logger-class ladder.web.gunicorn_log.JsonLogger`,
so every line a web process writes parses as JSON (its access log is JSON by format).
"""

from __future__ import annotations

from gunicorn import glogging

from ladder.settings import JsonFormatter


class JsonLogger(glogging.Logger):
    """gunicorn's logger with the error log's handlers formatting JSON (component "web")."""

    def setup(self, cfg) -> None:
        super().setup(cfg)
        for handler in self.error_log.handlers:
            handler.setFormatter(JsonFormatter("web"))

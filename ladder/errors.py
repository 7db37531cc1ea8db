"""Errors a service raises, each with the HTTP status a view should answer."""


class ServiceError(Exception):
    """A request the service refuses; the message says why, for the person who asked.

    Not a ValueError: an `except ValueError` meant for bad data (a bot file that
    cannot be staged, a malformed outcome) must never swallow a refusal.

    `field` names the part of the request it refuses ("players", "opponents[2]"), so a
    form can show the message under that field and an API answer can say which it was.
    """

    status = 400

    def __init__(self, message: str = "", *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class NotFound(ServiceError):
    status = 404


class Gone(NotFound):
    """It was here and is no more, for good (a replay the retention policy dropped): 410.

    A NotFound, so code that skips what is missing (a zip of replays) skips it too."""

    status = 410


class Forbidden(ServiceError):
    status = 403


class Conflict(ServiceError):
    status = 409


class Superseded(Conflict):
    """A worker's result for an attempt that is over: its lease lapsed (the host froze,
    say) and the work was handed out again. The result is refused, never recorded."""


class TooLarge(ServiceError):
    """A request or a file over its size limit (413)."""

    status = 413


class RateLimited(ServiceError):
    """Over a limit; `retry_after` is the seconds until a try may pass (Retry-After)."""

    status = 429

    def __init__(
        self, message: str, retry_after: int | None = None, *, field: str | None = None
    ) -> None:
        super().__init__(message, field=field)
        self.retry_after = retry_after

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)} if self.retry_after else {}

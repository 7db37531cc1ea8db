"""Errors a service raises, each with the HTTP status a view should answer."""


class ServiceError(ValueError):
    status = 400


class NotFound(ServiceError):
    status = 404


class Forbidden(ServiceError):
    status = 403


class Conflict(ServiceError):
    status = 409


class RateLimited(ServiceError):
    """Over a limit; `retry_after` is the seconds until a try may pass (Retry-After)."""

    status = 429

    def __init__(self, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)} if self.retry_after else {}

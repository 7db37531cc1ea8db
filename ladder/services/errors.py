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
    status = 429

"""Business rules of the ladder, called by views, the API, the CLI and the workers.

Each function takes a SQLAlchemy session (and the settings it needs) and
raises a `ServiceError` with a message fit to show the user.
"""

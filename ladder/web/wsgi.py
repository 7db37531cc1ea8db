"""The WSGI entry point for gunicorn: `gunicorn ladder.web.wsgi:app`."""

from ladder import create_app
from ladder.settings import configure_logging

configure_logging("web")
app = create_app()

"""Forms more than one blueprint uses; Flask-WTF adds the CSRF token to each."""

from flask_wtf import FlaskForm


class EmptyForm(FlaskForm):
    """A form with nothing but its CSRF token (retire, revoke, log out)."""

"""Bot forms."""

from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import BooleanField, SelectField, StringField
from wtforms.validators import DataRequired, InputRequired, Length


class UploadForm(FlaskForm):
    game = SelectField("Game", validators=[InputRequired()])
    name = StringField("Bot name", validators=[InputRequired(), Length(1, 60)])
    file = FileField("Bot file (.py, or .zip with bot.py at its root)", validators=[FileRequired()])
    candidate = BooleanField("Test it against the active version before it replaces it")
    promote = BooleanField("Make it active if the test finds it better", default=True)


class RetireForm(FlaskForm):
    confirm = BooleanField(
        "Yes, retire this bot for good",
        validators=[DataRequired("tick the box to confirm: retiring cannot be undone")],
    )


class ResumeForm(FlaskForm):
    """No fields: the button that puts a paused version back into matchmaking (CSRF only)."""


class PromoteForm(FlaskForm):
    """No fields: the button that makes a candidate the active version (CSRF only)."""

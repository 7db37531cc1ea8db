"""Bot forms."""

from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import SelectField, StringField
from wtforms.validators import InputRequired, Length


class UploadForm(FlaskForm):
    game = SelectField("Game", validators=[InputRequired()])
    name = StringField("Bot name", validators=[InputRequired(), Length(1, 60)])
    file = FileField("Bot file (.py, or .zip with bot.py at its root)", validators=[FileRequired()])

"""Tournament forms: staff create and add house bots, owners enter a bot."""

from flask_wtf import FlaskForm
from wtforms import BooleanField, SelectField, StringField
from wtforms.validators import InputRequired, Length, NumberRange, Optional

from ladder.services.matches import MAX_SEED
from ladder.services.tournaments import NAME_CHARS
from ladder.tournaments.model import FORMATS
from ladder.web.forms import WholeNumberField, whole


class CreateForm(FlaskForm):
    name = StringField("Name", validators=[InputRequired(), Length(1, NAME_CHARS)])
    game = SelectField("Game", validators=[InputRequired()])
    format = SelectField("Format", choices=list(FORMATS), default=FORMATS[0])
    table_size = WholeNumberField(
        "Table size (optional)", validators=[Optional(), NumberRange(2, 5)]
    )
    rounds = WholeNumberField(
        "Rounds (optional; round robin: tables each bot plays)",
        validators=[Optional(), NumberRange(1, 100)],
    )
    advance = WholeNumberField(
        "Elimination: advancing per table (optional)", validators=[Optional(), NumberRange(1, 4)]
    )
    duplicate = BooleanField("Duplicate sets (same seed in every seat rotation)")
    seed = WholeNumberField("Seed (optional)", validators=[Optional(), NumberRange(0, MAX_SEED)])


class EnterForm(FlaskForm):
    bot_id = SelectField("Your bot", coerce=whole, validators=[InputRequired()])


class HouseForm(FlaskForm):
    version_id = SelectField("House bot", coerce=whole, validators=[InputRequired()])

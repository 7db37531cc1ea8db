"""Challenge form."""

from flask_wtf import FlaskForm
from wtforms import HiddenField, IntegerField, SelectMultipleField
from wtforms.validators import InputRequired, NumberRange, Optional

from ladder.services.matches import MAX_SEED


class ChallengeForm(FlaskForm):
    version_id = HiddenField(validators=[InputRequired()])
    opponents = SelectMultipleField("Opponents", coerce=int, validators=[InputRequired()])
    seed = IntegerField("Seed (optional)", validators=[Optional(), NumberRange(0, MAX_SEED)])

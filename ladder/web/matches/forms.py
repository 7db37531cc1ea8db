"""Challenge form."""

from flask_wtf import FlaskForm
from wtforms import HiddenField, SelectMultipleField
from wtforms.validators import InputRequired, NumberRange, Optional

from ladder.services.matches import MAX_SEED
from ladder.web.forms import WholeNumberField, whole


class ChallengeForm(FlaskForm):
    version_id = HiddenField(validators=[InputRequired()])
    opponents = SelectMultipleField("Opponents", coerce=whole, validators=[InputRequired()])
    seed = WholeNumberField("Seed (optional)", validators=[Optional(), NumberRange(0, MAX_SEED)])

"""The play form: table size, the person's seat, and who sits in every other seat."""

from flask_wtf import FlaskForm
from wtforms import BooleanField, FieldList, SelectField, ValidationError

RANDOM = "random"
OPEN = "open"  # an open seat, taken by whoever holds its invitation link


class PlayForm(FlaskForm):
    players = SelectField("Players at the table", coerce=int)
    seat = SelectField("Your seat")
    opponents = FieldList(SelectField("Opponent"), min_entries=0)

    def offer(self, low: int, high: int, choices: list[tuple[str, str]]) -> None:
        """Choices for a game of `low` to `high` players; one opponent field per other seat."""
        self.players.choices = [(n, f"{n} players") for n in range(low, high + 1)]
        self.seat.choices = [(RANDOM, "Random")] + [(str(s), f"Seat {s}") for s in range(high)]
        while len(self.opponents) < high - 1:
            self.opponents.append_entry()
        # By default a different house bot in each seat: one version takes one seat only.
        house = [value for value, _label in choices if value.startswith("house:")] or [OPEN]
        for i, entry in enumerate(self.opponents):
            entry.choices = choices
            entry.label.text = f"Opponent {i + 1}"
            if entry.data is None:
                entry.data = house[i % len(house)]

    def validate_seat(self, field) -> None:
        players = self.players.data
        if not str(field.data).isdigit():  # random, or not a choice (said by the field itself)
            return
        if isinstance(players, int) and int(field.data) >= players:
            raise ValidationError(f"a table of {players} has seats 0 to {players - 1}")


class HumanPlayForm(FlaskForm):
    """A bot owner's switch: may others seat this bot at their live tables?"""

    allowed = BooleanField("Let people play against this bot at live tables")

"""Forms and fields more than one blueprint uses; Flask-WTF adds the CSRF token to each."""

from flask_wtf import FlaskForm
from wtforms import IntegerField

from ladder.errors import ServiceError
from ladder.inputs import whole_number


class EmptyForm(FlaskForm):
    """A form with nothing but its CSRF token (retire, revoke, log out)."""


def place_error(form: FlaskForm, exc: ServiceError, fallback: str | None = None) -> None:
    """Show a service's refusal under the form field its `field` names (else under
    `fallback`, else above the form), as a validator's error would be shown."""
    name = exc.field if exc.field is not None and exc.field in form else fallback
    if name is None:
        form.form_errors.append(str(exc))
    else:
        form[name].errors = [*form[name].errors, str(exc)]


def whole(value) -> int:
    """`coerce` for choice fields of ids: an int, or ASCII digits (ValueError otherwise)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    number = whole_number(value)
    if number is None:
        raise ValueError(f"not a whole number: {value!r}")
    return number


class WholeNumberField(IntegerField):
    """An IntegerField that takes ASCII digits only (int() would read '٣' as 3)."""

    def process_formdata(self, valuelist):
        if not valuelist:
            return
        self.data = whole_number(valuelist[0])
        if self.data is None:
            raise ValueError(self.gettext("Not a valid integer value."))

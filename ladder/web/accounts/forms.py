"""Account forms; Flask-WTF adds the CSRF token to each."""

from flask_wtf import FlaskForm
from wtforms import PasswordField, StringField
from wtforms.validators import EqualTo, InputRequired, Length


class RegisterForm(FlaskForm):
    username = StringField("Username", validators=[InputRequired(), Length(3, 40)])
    password = PasswordField("Password", validators=[InputRequired(), Length(8, 200)])
    confirm = PasswordField(
        "Password again", validators=[InputRequired(), EqualTo("password", "passwords differ")]
    )


class LoginForm(FlaskForm):
    username = StringField("Username", validators=[InputRequired(), Length(max=40)])
    password = PasswordField("Password", validators=[InputRequired(), Length(max=200)])


class PasswordForm(FlaskForm):
    current = PasswordField("Current password", validators=[InputRequired(), Length(max=200)])
    password = PasswordField("New password", validators=[InputRequired(), Length(8, 200)])
    confirm = PasswordField(
        "New password again",
        validators=[InputRequired(), EqualTo("password", "passwords differ")],
    )


class TokenForm(FlaskForm):
    name = StringField("Token name", validators=[InputRequired(), Length(1, 60)])

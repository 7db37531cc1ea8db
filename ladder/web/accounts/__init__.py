"""Register, log in and out, API tokens."""

"""Live tables in the browser: the play form, the table a person plays and watches on,
invitations, the list of live tables and the people's leaderboard (issue 32)."""

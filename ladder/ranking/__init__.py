"""Ranking, pure: TrueSkill ratings (`ratings`) and who sits at a ladder table (`matchmaking`).

No database, no clock, no global random: the services load rows, call these,
and store what they return.
"""

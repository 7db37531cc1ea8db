"""The read side: what pages, the API and the CLI show, built from the database.

Queries change nothing (no add, no flush, no commit); commands live in
`ladder.services` and may read through these. Nothing here imports a command.
"""

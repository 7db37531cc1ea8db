"""The commands: business rules that change state, called by web, jobs and cli.

One module per job: accounts, bots (uploads and validation's bookkeeping),
matches (creating, handing out, recording), tournaments (the lifecycle),
validation and playing (the worker's entry points), scheduler (keeping the
ladder busy), sweep (lost work handed out again), bot_files (a job's stored bots
on this host), infrastructure (which failures are worth another attempt), and
house, triage, throttle, storage, uploads. What pages read is in `ladder.queries`.
"""

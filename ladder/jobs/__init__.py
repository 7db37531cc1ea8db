"""Background work: the Celery app, its thin tasks, the worker's heartbeat, leases on
work in progress, the seam services announce work through, and the one Redis module.

The tasks only call `ladder.services`; what a match is lives in `workers`.
"""

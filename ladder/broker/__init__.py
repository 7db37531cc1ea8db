"""What the services call to reach the broker: Redis's names (`store`) and announcing
work once it is committed (`announce`). Below the services; no Celery, no Flask:
the Celery app and its tasks (`ladder.jobs`) sit at the top and bind these.
"""

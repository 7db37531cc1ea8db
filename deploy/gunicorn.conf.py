"""gunicorn's settings for the site in production (tradewinds-web.service reads this file).

The unit passes it through GUNICORN_CMD_ARGS=--config=...; `ladder web` adds the
bind address, the number of workers and the JSON access log on its command line,
which gunicorn ranks above this file, so they are not repeated here. Without the
file `ladder web` runs as it always has, on gunicorn's defaults.
"""

# The process title in ps and top: which gunicorn is the ladder's.
proc_name = "tradewinds-web"

# A request that takes longer has a stuck worker: gunicorn kills and replaces it.
# Pages and the API answer in well under a second; an upload is read in one go.
# nginx's proxy_read_timeout (deploy/nginx/tradewinds.conf) is the same.
timeout = 60

# On SIGTERM (a stop or restart) and on HUP (a reload), requests in flight get this
# long to finish; TimeoutStopSec= in the unit is a little longer.
graceful_timeout = 30

# Workers are recycled after about this many requests, so slow growth of memory in a
# long-lived process never adds up; the jitter keeps them from restarting together.
# Not much more often: a new worker loads the app again (about a second of a core)
# and starts with an empty page cache, so at 2,000 a busy worker (1,500 pages a
# second) spent more time starting than serving (deploy/README.md, "Page speed").
max_requests = 100_000
max_requests_jitter = 10_000

# Requests larger than these are refused before the app sees them (gunicorn's defaults,
# written down so the limits are visible next to nginx's).
limit_request_line = 4094
limit_request_fields = 100
limit_request_field_size = 8190

# The app itself trusts X-Forwarded-* from PROXY_HOPS proxies (werkzeug's ProxyFix in
# ladder/app.py). gunicorn trusts them only from nginx on this host, its default.
forwarded_allow_ips = "127.0.0.1,::1"

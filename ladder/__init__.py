"""The Tradewinds ladder: web site, services, ratings, tasks and the `ladder` CLI."""

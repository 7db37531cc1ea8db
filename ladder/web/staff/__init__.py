"""Pages for the ladder's staff: the status page."""

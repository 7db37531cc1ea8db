"""The replay viewer's pages and JSON endpoints (stored matches and opened files)."""

"""Match list, match page, replay download and challenges."""

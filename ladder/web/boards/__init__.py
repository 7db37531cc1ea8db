"""The front page, leaderboards and game pages."""

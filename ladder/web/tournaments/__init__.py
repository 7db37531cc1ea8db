"""Tournament pages: the list, a tournament, and staff and owner forms."""

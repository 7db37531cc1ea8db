"""Pages that are documents, and the short addresses people guess."""

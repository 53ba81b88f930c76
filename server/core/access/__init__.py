"""Who may call each route of the app, and the matrix of it in ``docs/security.md``."""

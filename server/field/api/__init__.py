"""The field's JSON API: inspections and assignments, the sync, and photos."""

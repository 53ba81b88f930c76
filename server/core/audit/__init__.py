"""The audit trail: every change, who made it and when, in the same transaction, chained
by SHA-256 so a rewritten row is found (``flask --app server audit verify``)."""

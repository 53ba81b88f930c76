"""Notices: the legal clock, USPS article numbers, letters and mailing books.

Everything in this package is pure Python (no Flask, no database): the server's
notice service hands it plain values and stores what it returns.
"""

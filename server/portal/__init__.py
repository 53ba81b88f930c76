"""The public side: a notice's owner answers it with the code on the letter, and licensed
plumbers apply for permits, request inspections and submit their CCTV, for staff to review."""


def init_app(app, api) -> None:
    """Register the portal's routes and pages (none yet)."""

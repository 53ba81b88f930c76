"""The office's server-rendered pages (templates in ``server/office/templates/``)."""

"""The field-sync fixtures (checklists loaded, a parcel) for the own-work tests."""

from tests.sync.conftest import parcel, templates  # noqa: F401 - fixtures, shared

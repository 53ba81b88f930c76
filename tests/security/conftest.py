"""The field-sync fixtures (checklists loaded) for the own-work tests."""

from tests.sync.conftest import templates  # noqa: F401 - a fixture, shared

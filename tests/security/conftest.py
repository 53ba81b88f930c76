"""The field-sync parcel fixture (an id) for the own-work tests; ``templates`` comes from
tests/plugin.py."""

from tests.sync.conftest import parcel  # noqa: F401 - a fixture, shared

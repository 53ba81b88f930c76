"""A short seeded soak on each database (``make soak`` runs the long one): tablets of both
kinds sync through a faulty proxy while gunicorn's workers, and now and then all of it,
are SIGKILLed; the verifier finds nothing lost, duplicated, orphaned or 5xx."""

from __future__ import annotations

import pytest

from bench.soak import soak
from tests.support.databases import ENGINES, postgis_database

FINDINGS = ("lost_inspections", "duplicated_inspections", "lost_photos", "duplicated_photos",
            "unlinked_photos", "orphan_photo_rows", "bad_blobs", "server_errors", "crashed_tablets")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ENGINES)
def test_a_short_soak_loses_and_duplicates_nothing(kind, tmp_path):
    url, drop = postgis_database() if kind == "postgis" else (None, None)
    try:
        result = soak(kind, rounds=8, tablets=2, seed=315, work=tmp_path, database_url=url,
                      kill_every=(1.0, 3.0), time_limit_s=300)
    finally:
        if drop:
            drop()
    assert not result["timed_out"], result
    assert {k: result[k] for k in FINDINGS} == dict.fromkeys(FINDINGS, 0), result["errors_seen"]
    assert result["inspections"] == 8 and result["photos"] >= 8
    faults = result["faults"]
    assert faults["cut"] + faults["reset"] + faults["delay"] > 0  # the network really failed
    assert result["kills"]["worker"] + result["kills"]["everything"] > 0  # and so did the server

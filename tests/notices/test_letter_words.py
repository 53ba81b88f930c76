"""What the mailed letters say, read back from the PDF with pdfplumber (issue 14, "the
letters' words"): the appeal clause of § 315-21H, the basis stated truly, every
clear-water source named, no internal ids, no invented rule, the ordinance's own
"within 30 days", and pages numbered with the owner and parcel and a signature never
left alone."""

from __future__ import annotations

import io
import re
from datetime import date, timedelta

import pdfplumber
from geoalchemy2.shape import from_shape, to_shape
from shapely.geometry import LineString, Point

from server.core.extensions import db
from server.network.models import Lateral, Manhole, SewerMain, Tap
from server.notices.letters.notice import long_date
from server.rules.models import Violation
from tests.support.city_calendar import city_today
from tests.support.notices import OWNER, add_parcel, add_violation, draft_one, walk
from tests.support.resolutions import send
from tests.support.sync import survey

VISITED = city_today() - timedelta(days=25)  # before the notice is mailed (20 days ago)
VISIT = {"started_at": f"{VISITED.isoformat()}T09:00:00-06:00", "finished_at": f"{VISITED.isoformat()}T09:40:00-06:00"}
ON = f"{VISITED:%B} {VISITED.day}, {VISITED.year}"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def pages(client, auth, notice_id: int) -> list[str]:
    r = client.get(f"/api/v1/notices/{notice_id}/letter.pdf", headers=auth["clerk"])
    assert r.status_code == 200
    with pdfplumber.open(io.BytesIO(r.data)) as pdf:
        return [" ".join((p.extract_text() or "").split()) for p in pdf.pages]


def letter_text(client, auth, notice_id: int) -> str:
    return " ".join(pages(client, auth, notice_id))


def mail_one(client, auth) -> dict:
    return walk(client, auth, draft_one(client, auth)["id"], "mailed")


def rules_violation(parcel, rule_id: str, section: str, subjects: list, **fields) -> Violation:
    """A violation as a rules run leaves it: source ``rules``, keyed by rule, aspect and subjects."""
    aspect = fields.pop("aspect", "")
    key = f"{rule_id}|{aspect}|" + ",".join(f"{layer}:{ident}" for layer, ident in subjects)
    v = Violation(rule_id=rule_id, section=section, key=key, status="open", source="rules",
                  subject_type=subjects[0][0], subject_id=subjects[0][1], subjects=subjects,
                  parcel_id=parcel.id, message=fields.pop("message", f"{rule_id} on {subjects[0][0]} "
                                                                        f"{subjects[0][1]}"), **fields)
    db.session.add(v)
    db.session.flush()
    return v


def street_network(parcel):
    """A main along the street south of ``parcel`` between two manholes, the parcel's
    lateral running north from its tap (below the parcel's centre) to the house."""
    minx, miny, maxx, maxy = to_shape(parcel.geom).bounds
    cx, cy = (minx + maxx) / 2, (miny + maxy) / 2
    west, east = (minx - 0.0004, miny - 0.0002), (maxx + 0.0005, miny - 0.0002)
    mh = [Manhole(facility_id=f"MH-{i}", kind="manhole", geom=from_shape(Point(p), srid=4326))
          for i, p in enumerate((west, east))]
    db.session.add_all(mh)
    db.session.flush()
    main = SewerMain(facility_id="SM-19", material="PVC", diameter_in=8, kind="gravity",
                     from_manhole_id=mh[0].id, to_manhole_id=mh[1].id,
                     geom=from_shape(LineString([west, east]), srid=4326))
    db.session.add(main)
    db.session.flush()
    lateral = Lateral(parcel_id=parcel.id, material="PVC", sdr=35, status="active",
                      geom=from_shape(LineString([(cx, west[1]), (cx, cy + 0.00008)]), srid=4326))
    db.session.add(lateral)
    db.session.flush()
    tap = Tap(main_id=main.id, lateral_id=lateral.id, method="wye", fitting_material="PVC",
              geom=from_shape(Point(cx, west[1]), srid=4326))
    db.session.add(tap)
    db.session.flush()
    return main, lateral, tap


# ------------------------------------------------------------------ the appeal clause (§ 315-21H)


def test_the_appeal_clause_counts_from_the_date_of_the_notice_and_states_its_terms(client, auth):
    add_violation(add_parcel(), "BACKFLOW-VALVE", "§ 315-12D")
    notice = mail_one(client, auth)

    text = letter_text(client, auth, notice["id"])

    mailed = long_date(date.fromisoformat(notice["mailed_on"]))
    assert (f"you may file a written appeal with the Arcadia Utility Commission within 10 days of the date "
            f"of this notice, {mailed}, setting forth in detail the facts supporting your appeal") in text
    assert "within 30 days of receiving it" in text
    assert "within 10 days after notification of its action, file a written appeal with the Common Council" in text
    assert "A fee established by the Common Council by resolution" in text
    assert "refunded if the appeal is sustained in your favor" in text
    assert "after you receive it" not in text


def test_an_article_i_letter_claims_no_appeal_the_article_does_not_give(client, auth):
    add_violation(add_parcel(), "CW-REMOVE-150", "Art. I (Ord. 112A, 1976)")
    notice = mail_one(client, auth)

    text = letter_text(client, auth, notice["id"])

    assert notice["kind"] == "CW-REMOVE-150"
    assert "§ 315-21H" not in text and "right to appeal" not in text
    assert "the date by which the violation must be corrected" in text  # the terms Art. I requires


# ------------------------------------------------------------------ the basis, stated truly


def test_a_rules_run_finding_says_it_comes_from_the_network_records_not_an_inspection(client, auth):
    parcel = add_parcel()
    main, lateral, tap = street_network(parcel)
    v = rules_violation(parcel, "LATERAL-SDR26", "§ 315-13C(3)", [["lateral", lateral.id]], measured=35, limit=26,
                        unit="SDR")
    notice = mail_one(client, auth)

    text = letter_text(client, auth, notice["id"])

    from server.notices.clock import city_day

    opened = city_day(v.opened_at)
    assert f"Found by the city's records of the sewer network as of {opened:%B} {opened.day}, {opened.year}:" in text
    assert "inspection" not in text.lower()
    assert ("is recorded as PVC SDR 35; § 315-13C(3) requires new or replacement building sewers of "
            "ASTM D3034 SDR 26 PVC") in text


def test_an_inspection_finding_names_the_day_and_the_inspector(client, auth, templates):
    parcel = add_parcel()
    send(client, auth, survey(parcel.id, [], access="refused", **VISIT))
    notice = mail_one(client, auth)

    text = letter_text(client, auth, notice["id"])

    assert notice["kind"] == "SURVEY-ACCESS"
    assert f"Found by an inspection of the property on {ON} by Test Inspector:" in text
    assert "Access for the clear-water survey was refused (Art. I (1976); § 315-12F)" in text


# ------------------------------------------------------------------ the clear-water letter names each source


def test_the_clear_water_letter_names_every_connected_source_its_discharge_test_and_date(client, auth, templates):
    parcel = add_parcel()
    minx, miny, maxx, maxy = to_shape(parcel.geom).bounds
    north = {"type": "Point", "coordinates": [(minx + maxx) / 2, maxy - 0.00002]}  # by the north edge
    sources = [
        {"source": "sump_pump", "discharges_to": "sanitary_sewer", "connected_to_sanitary": "yes", "test": "dye",
         "test_result": "positive", "photo": ["a" * 64]},
        {"source": "roof_downspout", "discharges_to": "sanitary_sewer", "connected_to_sanitary": "yes",
         "test": "smoke", "test_result": "positive", "location": north, "photo": ["b" * 64]},
        {"source": "yard_drain", "discharges_to": "storm_sewer", "connected_to_sanitary": "no", "test": "visual",
         "test_result": "not_tested", "photo": ["c" * 64]},
    ]
    send(client, auth, survey(parcel.id, sources, **VISIT))
    notice = mail_one(client, auth)

    text = letter_text(client, auth, notice["id"])

    assert notice["kind"] == "CW-DISCONNECT-60"
    assert f"Found by an inspection of the property on {ON} by Test Inspector:" in text
    assert f"Sump pump: discharges to the sanitary sewer; tested with dye on {ON} (positive) (§ 315-13D)" in text
    assert (f"Roof downspout, on the north side of the lot: discharges to the sanitary sewer; tested with smoke "
            f"on {ON} (positive) (§ 315-13D)") in text
    assert "Yard drain" not in text  # not connected: not a violation
    assert "Disconnect each clear-water source named above" in text
    assert "listed below" not in text


# ------------------------------------------------------------------ no internal ids


def test_a_tap_is_described_by_the_main_and_the_manhole_an_owner_can_find(client, auth):
    parcel = add_parcel()
    add_parcel()  # a neighbour farther from the west manhole
    main, lateral, tap = street_network(parcel)
    rules_violation(parcel, "TAP-SPACING-24IN", "§ 315-13B(2)", [["tap", tap.id], ["main", main.id]],
                    measured=14.2, limit=24, unit="in",
                    message=f"tap {tap.id} is 14.2 in along main {main.id} from the connection of tap 76")
    notice = mail_one(client, auth)

    text = letter_text(client, auth, notice["id"])

    assert re.search(r"The connection \(tap\) of the building sewer to the public sewer main, \d+ ft along the "
                     r"main from the manhole nearest \d+ W Main St, is 14\.2 in from another building sewer's "
                     r"connection on the same main; § 315-13B\(2\) requires at least 24 in", text), text
    for internal in (f"tap {tap.id}", f"main {main.id}", "tap 76", "SM-19", "MH-0"):
        assert internal not in text
    assert not re.search(r"\b(lateral|tap|main) \d", text)
    assert not UUID.search(text)


def test_an_inspection_letter_carries_no_uuid_nor_form_path(client, auth, templates):
    parcel = add_parcel()
    send(client, auth, survey(parcel.id, [
        {"source": "sump_pump", "discharges_to": "sanitary_sewer", "connected_to_sanitary": "yes", "test": "dye",
         "test_result": "positive", "photo": ["a" * 64]}], **VISIT))
    notice = mail_one(client, auth)

    text = letter_text(client, auth, notice["id"])

    assert not UUID.search(text)
    assert "sources.0" not in text and "connected_to_sanitary" not in text and "item " not in text


def test_a_lateral_is_described_by_the_side_of_the_house(client, auth):
    parcel = add_parcel()
    main, lateral, tap = street_network(parcel)
    rules_violation(parcel, "BACKFLOW-VALVE", "§ 315-12D", [["lateral", lateral.id]])
    notice = mail_one(client, auth)

    text = letter_text(client, auth, notice["id"])

    assert ("The building sewer (lateral) from the north side of the house to the public sewer main has no "
            "recorded backflow prevention valve; § 315-12D requires one on every sewer service") in text
    assert f"lateral {lateral.id}" not in text


# ------------------------------------------------------------------ no invented rule; the ordinance's words


def test_the_hookup_letter_states_no_adjacency_distance_as_law_and_says_within_30_days(client, auth):
    parcel = add_parcel()
    rules_violation(parcel, "HOOKUP-365", "§ 315-11D", [["parcel", parcel.id], ["main", 19]], measured=88.4,
                    limit=150, unit="ft",
                    message="parcel has a building 88 ft from gravity main 19 and no active building sewer; "
                            "§ 315-11D requires connection (within 150 ft counts as adjacent)")
    notice = mail_one(client, auth)

    text = letter_text(client, auth, notice["id"])

    assert notice["kind"] == "HOOKUP-365"
    assert "counts as adjacent" not in text and "150 ft" not in text and "main 19" not in text
    assert "a public sewer main runs about 88 ft from the building" in text
    assert "if the cost is not paid within 30 days, it shall be assessed as a special tax" in text
    assert "after it is due" not in text
    assert "listed below" not in text


# ------------------------------------------------------------------ pages


def test_a_long_letter_numbers_its_pages_with_owner_and_parcel_and_keeps_the_signature_with_text(client, auth):
    parcel = add_parcel()
    for n in range(28):
        add_violation(parcel, "BACKFLOW-VALVE", "§ 315-12D", f"Finding number {n} of a long letter")
    notice = walk(client, auth, draft_one(client, auth)["id"], "mailed")

    texts = pages(client, auth, notice["id"])

    assert len(texts) >= 2
    for i, text in enumerate(texts, 1):
        assert f"page {i} of {len(texts)}" in text
        assert OWNER in text and parcel.parcel_number in text
    last = texts[-1]
    signature = last.index("Test Superintendent, Water and Wastewater Superintendent")
    assert "Questions: call" in last[:signature]  # the signature is not alone on its page


def test_the_letter_prints_the_commissions_delegation_to_the_superintendent(client, auth):
    """The ordinance has the Commission give notice; the letter says under what resolution the
    superintendent signs in its name (rulebook ``[municipality] commission_delegation``)."""
    add_violation(add_parcel(), "BACKFLOW-VALVE", "§ 315-12D")
    notice = mail_one(client, auth)

    last = pages(client, auth, notice["id"])[-1]

    assert ("The Water and Wastewater Superintendent issues notices in the name of the Arcadia Utility "
            "Commission under Utility Commission Resolution 2009-07, adopted 2009-09-08.") in last
    assert last.index("Test Superintendent, Water and Wastewater Superintendent") < last.index("issues notices")

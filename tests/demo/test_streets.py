"""The demo city's streets are named and numbered as its addresses are (issue 34)."""

from __future__ import annotations

import re

import shapely

from server.demo.city import generate_city


def _split(address: str) -> tuple[int, str]:
    number, street = re.match(r"^(\d+) (.+)$", address).groups()
    return int(number), street


def _ranges(street: dict) -> list[tuple[int, int]]:
    sides = [(street["left_from"], street["left_to"]), (street["right_from"], street["right_to"])]
    return [(a, b) for a, b in sides if a is not None]


def test_every_site_address_is_on_a_street_piece_that_numbers_it():
    city = generate_city(300)
    for parcel in city.parcels:
        number, name = _split(parcel["site_address"])
        pieces = [s for s in city.streets if s["name"] == name and
                  any(lo <= number <= hi and lo % 2 == number % 2 for lo, hi in _ranges(s))]
        assert len(pieces) == 1, parcel["site_address"]
        # The lot fronts the piece that numbers it: within a half street and a bit of its line.
        lot, line = parcel["geometry"], pieces[0]["geometry"]
        assert shapely.distance(lot, line) < 0.0002, parcel["site_address"]


def test_numbers_grow_along_each_piece_and_each_side_has_one_parity():
    city = generate_city(300)
    for street in city.streets:
        for lo, hi in _ranges(street):
            assert lo <= hi and lo % 2 == hi % 2
        left, right = street["left_from"], street["right_from"]
        if left is not None and right is not None:
            assert left % 2 != right % 2


def test_cross_streets_carry_names_but_no_numbers():
    city = generate_city(300)
    cross = [s for s in city.streets if s["name"] == "Center St" or " Ave " in s["name"]]
    assert cross and all(not _ranges(s) for s in cross)
    named = {s["name"].split(" ")[0] for s in city.streets}
    assert {"W", "E"} <= named

"""USPS article numbers: check digit, structure, and every published test number."""

from __future__ import annotations

import csv

import pytest

from gis.rulebook import load_rulebook
from server.notices.article_numbers import (
    ArticleNumberError,
    ArticleNumbersExhausted,
    SerialRange,
    build_article_number,
    check_digit,
    human_readable,
    is_valid,
    split_routing,
)
from tests.support.env import SHARED_DIR, need_shared

CSV_PARTS = ("realdata", "usps", "usps_tracking_test_numbers.csv")


def _csv_rows():
    path = SHARED_DIR.joinpath(*CSV_PARTS)
    if not path.exists():
        return [pytest.param(None, id="csv-absent")]
    with path.open(newline="") as fh:
        return [
            pytest.param(row, id=f"{i:02d}-{row['expected']}-{row['digits']}")
            for i, row in enumerate(csv.DictReader(fh))
        ]


@pytest.mark.parametrize("row", _csv_rows())
def test_published_test_number(row):
    need_shared(*CSV_PARTS)
    assert is_valid(row["number_as_published"]) is (row["expected"] == "valid"), row["source_note"]


def test_worked_example_check_digit():
    # legal-and-standards.md §2: 3 x 32 + 56 = 152 -> (10 - 2) % 10 = 8.
    assert check_digit("9207190235890900001127553") == 8


@pytest.mark.parametrize("n", ["0" * 20, "0" * 22, "0" * 26])
def test_all_zero_passes_mod10_but_is_rejected(n):
    assert check_digit(n[:-1]) == 0  # the trap: the check digit alone accepts it
    assert not is_valid(n)


def test_34_digits_are_read_both_ways():
    readings = split_routing("4201002334249200190132607600833457")
    assert ("10023", "34249200190132607600833457") in readings  # ZIP5 + 26
    assert ("100233424", "9200190132607600833457") in readings  # ZIP9 + 22


def test_legacy_20_needs_91_prefix():
    # 7196 9010 7560 0307 7385 fails on its own and passes as 91 + 20 digits.
    assert check_digit("7196901075600307738") != 5
    assert check_digit("917196901075600307738") == 5
    assert is_valid("71969010756003077385")


def test_build_article_number_is_22_valid_digits():
    mail = load_rulebook("arcadia").section("mail")
    number = build_article_number(1, mail)
    assert len(number) == 22
    assert number.startswith("92" + "071" + "902358909" + "0000001")
    assert is_valid(number)


def test_build_rejects_serial_too_long():
    with pytest.raises(ArticleNumberError):
        build_article_number(10_000_000, load_rulebook("arcadia").section("mail"))


def test_rulebook_serial_range_fits_seven_digits():
    rng = SerialRange.from_mail_config(load_rulebook("arcadia").section("mail"))
    build_article_number(rng.last, load_rulebook("arcadia").section("mail"))  # must not raise
    assert rng.last < 10**7


def test_human_readable_groups_of_four():
    assert human_readable("9207190235890900000018") == "9207 1902 3589 0900 0000 18"


@pytest.mark.parametrize(("last_used", "expected"), [(None, 1), (1, 2), (41, 42), (0, 1)])
def test_serial_range_next(last_used, expected):
    assert SerialRange(1, 100).next_after(last_used) == expected


def test_serial_range_exhausted():
    with pytest.raises(ArticleNumbersExhausted, match="used up"):
        SerialRange(1, 100).next_after(100)


def test_serial_range_remaining():
    assert SerialRange(1, 100).remaining(None) == 100
    assert SerialRange(1, 100).remaining(99) == 1

"""Lookup codes: enough randomness, typed in groups, a check symbol that catches typing mistakes."""

from __future__ import annotations

import pytest

from server.portal import codes


def test_a_code_is_four_groups_of_four_with_at_least_60_random_bits():
    code = codes.new_code()
    assert [len(g) for g in code.split("-")] == [4, 4, 4, 4]
    assert codes.BITS >= 60
    assert len({codes.new_code() for _ in range(2000)}) == 2000


def test_reading_a_code_back_forgives_case_spaces_and_look_alikes():
    code = codes.normalise(codes.new_code())
    typed = " ".join(code[i:i + 4] for i in range(0, 16, 4)).lower().replace("0", "o").replace("1", "l")
    assert codes.normalise(typed) == code


def test_every_single_mistyped_symbol_is_caught():
    code = codes.normalise(codes.new_code())
    for i in range(len(code)):
        for symbol in codes.ALPHABET.replace(code[i], ""):
            with pytest.raises(codes.CodeMistyped):
                codes.normalise(code[:i] + symbol + code[i + 1:])


@pytest.mark.parametrize("position", range(codes.RANDOM_SYMBOLS - 1))
def test_swapping_two_neighbours_is_caught_but_0_and_z(position):
    missed = []
    for a in codes.ALPHABET:
        for b in codes.ALPHABET.replace(a, ""):
            payload = "7" * position + a + b + "7" * (codes.RANDOM_SYMBOLS - position - 2)
            swapped = payload[:position] + b + a + payload[position + 2:]
            try:
                codes.normalise(swapped + codes.check_symbol(payload))
                missed.append(a + b)
            except codes.CodeMistyped:
                pass
    assert sorted(missed) == ["0Z", "Z0"]


@pytest.mark.parametrize("typed", ["", "ABCD", "ABCD-EFGH-JKMN-PQRS-TVWX", "ABCD-EFGH-JKMN-PQR!",
                                   "UUUU-UUUU-UUUU-UUUU"])
def test_what_cannot_be_a_code_is_refused(typed):
    with pytest.raises(codes.CodeMistyped):
        codes.normalise(typed)


def test_only_a_digest_is_kept_and_it_differs_per_code():
    a, b = codes.normalise(codes.new_code()), codes.normalise(codes.new_code())
    assert codes.digest(a) != codes.digest(b) and a not in codes.digest(a) and len(codes.digest(a)) == 64

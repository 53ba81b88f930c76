"""``flask --app server rules run``: the whole network from the command line."""

from __future__ import annotations

from tests.support.rules import planted, stored


def test_rules_run_prints_a_summary_and_opens_the_planted_breaks(app, seeded_city_300):
    result = app.test_cli_runner().invoke(args=["rules", "run"])
    assert result.exit_code == 0, result.output
    found = len(stored())
    assert f"{found:,} violations found; {found:,} opened, 0 kept, 0 resolved" in result.output
    assert {v.rule_id for v in stored()} == {d[0] for d in planted(seeded_city_300)}


def test_rules_run_of_one_rule(app, seeded_city_300):
    result = app.test_cli_runner().invoke(args=["rules", "run", "--rule", "TAP-QUADRANT"])
    assert result.exit_code == 0, result.output
    assert {v.rule_id for v in stored()} == {"TAP-QUADRANT"}


def test_rules_run_of_an_unknown_rule_fails_naming_it(app):
    result = app.test_cli_runner().invoke(args=["rules", "run", "--rule", "NO-SUCH"])
    assert result.exit_code != 0
    assert "no rule 'NO-SUCH'" in result.output

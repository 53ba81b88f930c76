"""The sentences every letter shares: the appeal right, the forfeiture, whom to call.

The words of each kind of notice are declared in :mod:`server.notices.kinds`; the
fields the templates use come from :func:`text_fields` (the municipality and the
rulebook's deadline tables). The appeal clause restates § 315-21H: ten days from the
date of the decision (this notice), a written appeal setting forth the facts in
detail, the Commission's thirty days, the further ten days to the Common Council, and
the fee set by the Council, refunded if the appeal is sustained.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from gis.rulebook import Rulebook, RulebookError
from server.notices.article_numbers import human_readable
from server.notices.kinds import notice_kind
from server.notices.letters.documents import Municipality


def _deadline(rulebook: Rulebook, rule: str) -> dict[str, Any]:
    try:
        return rulebook.deadline(rule)
    except RulebookError:
        return {}


def text_fields(kind: str, municipality: Municipality, rulebook: Rulebook) -> dict[str, Any]:
    """Template fields for a notice kind: municipality, its deadline table, appeal terms."""
    dl = rulebook.deadline(notice_kind(kind).deadline_rule)
    appeal = _deadline(rulebook, "APPEAL-10")
    decision = _deadline(rulebook, "APPEAL-DECISION-30")
    council = _deadline(rulebook, "COUNCIL-APPEAL-10")
    penalty = _deadline(rulebook, "HOOKUP-PENALTY")
    fields: dict[str, Any] = {
        "ordinance": municipality.ordinance or "sewer use ordinance",
        "utility": municipality.utility,
        "commission": municipality.commission,
        "superintendent_title": municipality.superintendent_title,
        "phone": municipality.phone,
        "bill_unpaid_days": 30,
        "appeal_section": appeal.get("section", "§ 315-21H"),
        "appeal_days": appeal.get("days", 10),
        "appeal_fee": appeal.get("fee"),
        "commission_decides_days": decision.get("days", appeal.get("commission_decides_days", 30)),
        "council_appeal_days": council.get("days", appeal.get("council_appeal_days", 10)),
    }
    if "penalty_per_day" in penalty:
        fields["penalty_per_day"] = penalty["penalty_per_day"]
    fields.update(dl)
    if "penalty_per_day" in fields:
        fields["penalty_per_day"] = f"{float(fields['penalty_per_day']):.2f}"
    return fields


def appeal_text(f: dict[str, Any], notice_date: str) -> str:
    """The owner's appeal right under § 315-21H, counted from the date of this notice."""
    fee = (f"A fee of ${float(f['appeal_fee']):.2f}, established by the Common Council by resolution, "
           if f.get("appeal_fee") is not None else
           "A fee established by the Common Council by resolution (call {phone} for the amount) ")
    return (
        "Your right to appeal ({appeal_section}): you may file a written appeal with the "
        "{commission} within {appeal_days} days of the date of this notice, " + notice_date + ", "
        "setting forth in detail the facts supporting your appeal. The {commission} shall decide "
        "the appeal in writing within {commission_decides_days} days of receiving it. If its "
        "ruling is unsatisfactory, you may, within {council_appeal_days} days after notification "
        "of its action, file a written appeal with the Common Council. " + fee +
        "shall accompany any appeal; it is refunded if the appeal is sustained in your favor. "
        "This appeal procedure does not apply to any citation or pending court action."
    ).format(**f)


def forfeiture_text(f: dict[str, Any]) -> str:
    """The forfeiture range this kind of violation carries, from the rulebook."""
    if "forfeiture_min" not in f:
        return ""
    text = (
        "Upon conviction of a violation, a person shall forfeit not less than ${forfeiture_min} "
        "nor more than ${forfeiture_max}"
    ).format(**f)
    if f.get("forfeiture_each_day"):
        text += "; each day of violation is a separate offense"
    if f.get("forfeiture_daily_after_deadline"):
        text += (
            ", together with statutorily prescribed court costs and assessments; a violation "
            "continued after the time "
            "limit of this notice is subject, upon conviction, to a forfeiture of not less than "
            "${forfeiture_daily_after_deadline}, each day a separate offense"
        ).format(**f)
    return text + " ({forfeiture_section}).".format(**f)


def delegation_text(municipality: dict[str, Any]) -> str:
    """The Commission's delegation to the superintendent, as the rulebook's
    ``[municipality] commission_delegation`` records it (empty when it records none)."""
    d = municipality.get("commission_delegation") or {}
    if not d.get("resolution"):
        return ""
    adopted = d.get("adopted")
    on = f", adopted {adopted.isoformat() if isinstance(adopted, date) else adopted}" if adopted else ""
    return (f"The {municipality.get('superintendent_title', 'Superintendent')} issues notices in the name of the "
            f"{municipality.get('commission', 'Utility Commission')} under {d['resolution']}{on}.")


def delegation_placeholder(municipality: dict[str, Any]) -> str | None:
    """Why the rulebook's delegation cannot be printed on a notice (no resolution, or one
    marked as a placeholder), or None when it can."""
    d = municipality.get("commission_delegation") or {}
    resolution = str(d.get("resolution") or "").strip()
    if not resolution:
        return "[municipality] commission_delegation names no resolution"
    if d.get("placeholder") or "placeholder" in resolution.lower():
        return f"[municipality] commission_delegation is a placeholder ({resolution!r})"
    return None


def _day(d: date) -> str:
    return f"{d:%A, %B} {d.day}, {d.year}"


def notice_cited(mailed: date, article_number: str | None) -> str:
    """An earlier notice as a letter cites it: by its date and certified article number
    (the owner holds the letter, not the city's record number)."""
    article = f", certified mail article {human_readable(article_number)}" if article_number else ""
    return f"the notice mailed to you on {_day(mailed)}{article}"


def follows_text(mailed: date, article_number: str | None, deadline: date | None) -> str:
    """The sentence of a follow-up notice (the hook-up penalty's ten days' notice, § 315-11D)
    naming the notice it follows and the day that notice gave."""
    until = f", which required the connection by {_day(deadline)}" if deadline else ""
    return f"This notice follows {notice_cited(mailed, article_number)}{until}."


def review_text(rulebook: Rulebook, kind: str, commission: str) -> str:
    """The review route of a notice § 315-21H's appeal does not cover (Art. I): the
    rulebook's own (``[deadlines.<kind>] review``), else a municipal administrative review
    under Wis. Stat. ch. 68: a written request within 30 days of notice of the
    determination (§ 68.08)."""
    try:
        own = str(rulebook.deadline(kind).get("review") or "").strip()
    except RulebookError:
        own = ""
    if own:
        return own
    return (f"Your right to a review: this notice is a determination of the {commission}. Under Wis. Stat. "
            f"ch. 68 you may request a review of it by writing to the {commission} at the address above "
            "within 30 days of receiving this notice (Wis. Stat. § 68.08), stating why you disagree.")


def contact_text(f: dict[str, Any]) -> str:
    return "Questions: call the {utility} at {phone}, or write to the address above.".format(**f)


def portal_text(address: str, code: str) -> str:
    """How to see and answer the notice online (the portal prints the same words)."""
    return (f"See this notice and answer it online at {address} (or scan the square code): "
            f"enter the lookup code {code} and the parcel number printed above. The code opens "
            "this notice only; keep it like a key.")

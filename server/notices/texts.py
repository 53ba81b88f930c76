"""What each kind of notice says, in one table (the drawing code only lays it out).

Texts are ``str.format`` templates; the fields come from :func:`text_fields`
(municipality, rulebook deadline table, section). Wording cites the section for
every duty so a clerk can defend the letter at a hearing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gis.rulebook import Rulebook, load_rulebook
from server.notices.documents import Municipality


@dataclass(frozen=True)
class NoticeText:
    """The words of one notice kind.

    Attributes:
        title: heading of the letter.
        deadline_rule: the rulebook ``[deadlines.*]`` entry that sets the period.
        intro: what the inspection found and the rule it breaks.
        action: what the owner must do, completed by "no later than <date>".
        consequence: what happens if the owner does not (may be empty).
    """

    title: str
    deadline_rule: str
    intro: str
    action: str
    consequence: str = ""


NOTICE_TEXTS: dict[str, NoticeText] = {
    "CW-DISCONNECT-60": NoticeText(
        title="Notice to disconnect clear water from the sanitary sewer",
        deadline_rule="CW-DISCONNECT-60",
        intro=(
            "An inspection of the property below found clear water entering the sanitary "
            "sewer. Under {section} ({ordinance}), roof downspouts, foundation drains, "
            "sump pumps, yard drains and other surface or ground water must not be connected "
            "to the building sewer."
        ),
        action="Disconnect every clear-water source listed below from the building sewer",
    ),
    "CW-REMOVE-150": NoticeText(
        title="Notice to remove clear-water connections",
        deadline_rule="CW-REMOVE-150",
        intro=(
            "The clear-water survey of the {utility} found roof drain, foundation drain or "
            "sump pump connections to the sanitary sewer on the property below, which "
            "{section} prohibits."
        ),
        action="Remove the connections listed below from the sanitary sewer",
    ),
    "HOOKUP-365": NoticeText(
        title="Notice to connect to the public sewer",
        deadline_rule="HOOKUP-365",
        intro=(
            "The property below adjoins a public sewer and has a building where people "
            "reside, congregate or work. {section} ({ordinance}) requires it to be "
            "connected to the public sewer by a building sewer serving this parcel only."
        ),
        action="Connect the building(s) on this parcel to the public sewer",
        consequence=(
            "If the connection is not made, the {commission} may make it and bill you for the "
            "cost; a bill unpaid {bill_unpaid_days} days after it is due becomes a special tax "
            "on the property."
        ),
    ),
    "HOOKUP-PENALTY": NoticeText(
        title="Ten days' notice: penalty for failing to connect to the public sewer",
        deadline_rule="HOOKUP-PENALTY",
        intro=(
            "You were notified to connect the property below to the public sewer under "
            "{section}, and the connection has not been made."
        ),
        action="Connect the building(s) on this parcel to the public sewer",
        consequence=(
            "After that date a penalty of ${penalty_per_day} per day is charged while the "
            "violation continues ({section}); an unpaid penalty is entered on the tax roll "
            "as a special tax (Wis. Stat. § 281.45)."
        ),
    ),
    "SURVEY-ACCESS": NoticeText(
        title="Notice to allow inspection for the clear-water survey",
        deadline_rule="SURVEY-ACCESS",
        intro=(
            "The {superintendent_title} and the inspectors acting for the {utility} were not "
            "given access to the property below for the clear-water survey. Refusing access "
            "for the survey is itself a violation ({section})."
        ),
        action=(
            "Call {phone} and allow the inspection of the building's plumbing and drains"
        ),
    ),
    "GENERAL-VIOLATION": NoticeText(
        title="Notice of violation of the sewer use ordinance",
        deadline_rule="CORRECTION",
        intro=(
            "An inspection of the property below found the violations of {ordinance} "
            "listed below ({section})."
        ),
        action="Correct the violations listed below",
    ),
}


def text_fields(kind: str, municipality: Municipality, rulebook: Rulebook | None = None) -> dict[str, Any]:
    """Template fields for a notice kind: municipality, its deadline table, appeal terms."""
    rulebook = rulebook or load_rulebook()
    dl = rulebook.deadline(NOTICE_TEXTS[kind].deadline_rule)
    appeal = rulebook.deadline("APPEAL-10")
    fields: dict[str, Any] = {
        "ordinance": municipality.ordinance or "sewer use ordinance",
        "utility": municipality.utility,
        "commission": municipality.commission,
        "superintendent_title": municipality.superintendent_title,
        "phone": municipality.phone,
        "bill_unpaid_days": 30,
        "appeal_section": appeal.get("section", ""),
        "appeal_days": appeal.get("days", 10),
        "commission_decides_days": appeal.get("commission_decides_days", 30),
        "council_appeal_days": appeal.get("council_appeal_days", 10),
    }
    fields.update(dl)
    if "penalty_per_day" in fields:
        fields["penalty_per_day"] = f"{float(fields['penalty_per_day']):.2f}"
    return fields


def appeal_text(f: dict[str, Any]) -> str:
    """The owner's appeal right (§ 315-21H)."""
    return (
        "Your right to appeal: you may appeal this notice in writing to the {commission} "
        "within {appeal_days} days after you receive it ({appeal_section}). The Commission "
        "decides within {commission_decides_days} days; its decision may be appealed to the "
        "Common Council within {council_appeal_days} days."
    ).format(**f)


def forfeiture_text(f: dict[str, Any]) -> str:
    """The forfeiture range this kind of violation carries, from the rulebook."""
    if "forfeiture_min" not in f:
        return ""
    text = (
        "A violation is subject to a forfeiture of not less than ${forfeiture_min} nor more "
        "than ${forfeiture_max}"
    ).format(**f)
    if f.get("forfeiture_each_day"):
        text += "; each day a violation continues is a separate offense"
    if f.get("forfeiture_daily_after_deadline"):
        text += (
            ", plus costs; a violation continuing past the time limit of this notice is subject "
            "to a forfeiture of not less than ${forfeiture_daily_after_deadline} for each day, "
            "each day a separate offense"
        ).format(**f)
    return text + " ({forfeiture_section}).".format(**f)


def contact_text(f: dict[str, Any]) -> str:
    return "Questions: call the {utility} at {phone}, or write to the address above.".format(**f)

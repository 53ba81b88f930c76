"""Invented people, businesses and streets for the demo city.

Names are drawn from common Upper-Midwest given names and surnames; the businesses
and out-of-town streets are made up. None of it describes a real owner.
"""

from __future__ import annotations

FIRST_NAMES = (
    "John", "Mary", "James", "Linda", "Robert", "Patricia", "Michael", "Barbara",
    "David", "Susan", "Thomas", "Karen", "Daniel", "Nancy", "Mark", "Lisa", "Paul",
    "Sandra", "Steven", "Donna", "Gary", "Carol", "Dale", "Joan", "Dennis", "Judy",
    "Roger", "Diane", "Wayne", "Jean", "Duane", "Marlene", "Gerald", "Elaine",
    "Kyle", "Amanda", "Tyler", "Jessica", "Brandon", "Ashley", "Jose", "Maria",
    "Luis", "Ana", "Carlos", "Rosa", "Nathan", "Emily", "Jacob", "Hannah",
)
LAST_NAMES = (
    "Kowalski", "Schultz", "Weber", "Olson", "Larson", "Johnson", "Nelson", "Anderson",
    "Hanson", "Peterson", "Schmidt", "Meyer", "Wagner", "Becker", "Hoffmann", "Klein",
    "Nowak", "Wozniak", "Lewandowski", "Zielinski", "Kaminski", "Jankowski", "Sobczak",
    "Halvorson", "Ellingson", "Thompson", "Gunderson", "Erickson", "Lund", "Berg",
    "Garcia", "Hernandez", "Lopez", "Martinez", "Ramirez", "Torres", "Brown", "Miller",
    "Wilson", "Moore", "Fischer", "Koch", "Krause", "Schroeder", "Vogel", "Pehler",
    "Rotering", "Marsolek", "Bautch", "Kampa",
)
BUSINESS_WORDS = (
    "Valley", "River", "Bluff", "Prairie", "Coulee", "Trout Run", "Elk Creek",
    "Northside", "Hilltop", "Pine Ridge", "Maple Grove", "Cedar",
)
COMMERCIAL_KINDS = (
    "Hardware LLC", "Family Restaurant", "Dental Clinic SC", "Auto Repair Inc",
    "Laundromat LLC", "Insurance Agency", "Cafe & Bakery", "Veterinary Clinic",
    "Bar & Grill LLC", "Market Inc", "Realty LLC", "Credit Union",
)
INDUSTRIAL_KINDS = (
    "Fabrication Inc", "Woodworks LLC", "Dairy Cooperative", "Feed & Grain Co",
    "Machine Shop Inc", "Plastics LLC",
)
PUBLIC_OWNERS = (
    "City of Arcadia", "Arcadia School District", "Trempealeau County",
    "State of Wisconsin DOT", "Arcadia Housing Authority",
)

# East-west streets, south to north; further north the grid uses numbered streets.
EW_STREETS = (
    "Main St", "River St", "Lincoln St", "Washington St", "Franklin St", "Jefferson St",
    "Madison St", "Monroe St", "Adams St", "Jackson St", "Harrison St", "Tyler St",
    "Polk St", "Taylor St", "Fillmore St", "Pierce St", "Grant St", "Hayes St",
    "Garfield St", "Arthur St", "Cleveland St", "McKinley St", "Dettloff Dr",
    "Fairview Dr", "Hillcrest Dr", "Bluff View Ln", "Meadow Ln", "Prairie Ave",
    "Orchard Ave", "Sunset Dr",
)

OTHER_STREETS = (
    "Oak St", "Maple Ave", "Elm St", "Birch Ln", "Park Ave", "Cedar St", "Lakeview Dr",
    "Mill Rd", "County Road J", "Spruce St",
)
# (city, state, ZIP) for owners who live elsewhere.
WI_TOWNS = (
    ("Whitehall", "WI", "54773"), ("Independence", "WI", "54747"),
    ("Galesville", "WI", "54630"), ("Blair", "WI", "54616"),
    ("La Crosse", "WI", "54601"), ("Eau Claire", "WI", "54701"),
    ("Madison", "WI", "53703"), ("Fountain City", "WI", "54629"),
)
OUT_OF_STATE = (
    ("Winona", "MN", "55987"), ("Minneapolis", "MN", "55401"),
    ("Rochester", "MN", "55901"), ("Chicago", "IL", "60614"),
    ("Dubuque", "IA", "52001"), ("Phoenix", "AZ", "85004"),
    ("Fort Myers", "FL", "33901"),
)
INSPECTORS = ("Dana Halvorson", "Luis Ramirez", "Kari Sobczak", "Tom Wagner")


def ordinal(n: int) -> str:
    """``1 -> "1st"``, ``12 -> "12th"``, ``23 -> "23rd"``."""
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def ew_street(j: int) -> str:
    """Name of the ``j``-th east-west street from the south."""
    if j < len(EW_STREETS):
        return EW_STREETS[j]
    return f"{ordinal(j - len(EW_STREETS) + 1)} St N"

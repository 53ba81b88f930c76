"""No pure function picks a city: each is given its rulebook (docs/architecture.md, "Pure packages").

A parameter that falls back to a rulebook when left out (None meaning "load Arcadia's", or
a rulebook or ``"arcadia"`` itself) lets a caller forget it and measure, date and print
another city's notices with Arcadia's numbers. The modules checked are ``gis`` and those
``.importlinter``'s pure-modules contract lists, read from the file so a module added there
is checked too.
"""

from __future__ import annotations

import configparser
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from types import ModuleType

import pytest

from gis.rulebook import Rulebook, RulebookError, load_rulebook
from tests.support.env import REPO_ROOT

#: What a parameter that takes a rulebook (or names one) is called in this code.
RULEBOOK_PARAMETERS = frozenset({"rulebook", "rb", "rulebook_ref", "name_or_path"})
ARCADIA = load_rulebook("arcadia")


def pure_modules() -> list[str]:
    parser = configparser.ConfigParser()
    parser.read(REPO_ROOT / ".importlinter")
    listed = parser["importlinter:contract:pure-modules"]["source_modules"].split()
    names: set[str] = set()
    for name in ("gis", *listed):
        names.add(name)
        package = importlib.import_module(name)
        if hasattr(package, "__path__"):
            names.update(m.name for m in pkgutil.walk_packages(package.__path__, f"{name}."))
    return sorted(names)


def callables_of(module: ModuleType) -> Iterator[tuple[str, Callable]]:
    """The functions, and the methods of the classes (dataclass ``__init__`` too), defined in ``module``."""
    for name, member in vars(module).items():
        if getattr(member, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(member):
            yield name, member
        elif inspect.isclass(member):
            for attr, value in vars(member).items():
                function = value.__func__ if isinstance(value, classmethod | staticmethod) else value
                if inspect.isfunction(function):
                    yield f"{name}.{attr}", function


def defaults_to_a_city(function: Callable) -> list[str]:
    """The parameters of ``function`` that fall back to a rulebook when a caller leaves them out."""
    found = []
    for parameter in inspect.signature(function).parameters.values():
        default = parameter.default
        if default is inspect.Parameter.empty:
            continue
        if (parameter.name in RULEBOOK_PARAMETERS or isinstance(default, Rulebook)
                or (isinstance(default, str) and default.lower() == "arcadia")):
            found.append(f"{parameter.name}={default!r}")
    return found


@pytest.mark.parametrize("name", pure_modules())
def test_no_pure_function_defaults_to_a_rulebook(name):
    module = importlib.import_module(name)
    offenders = {where: found for where, function in callables_of(module) if (found := defaults_to_a_city(function))}
    assert offenders == {}, f"{name}: pass the rulebook in (the app's is city.current().rulebook)"


def test_the_check_would_catch_a_rulebook_default():
    def deadline(rule_id: str, rulebook: Rulebook | None = None): ...
    def letter(kind: str, rb=ARCADIA): ...
    def calendar(*, city: str = "Arcadia"): ...
    def measured(network, rulebook: Rulebook, limit: int = 10): ...

    assert defaults_to_a_city(deadline) == ["rulebook=None"]
    assert defaults_to_a_city(letter) == [f"rb={ARCADIA!r}"]
    assert defaults_to_a_city(calendar) == ["city='Arcadia'"]
    assert defaults_to_a_city(measured) == []


def test_load_rulebook_requires_its_argument():
    parameter = inspect.signature(load_rulebook).parameters["name_or_path"]
    assert parameter.default is inspect.Parameter.empty
    with pytest.raises(TypeError):
        load_rulebook()  # type: ignore[call-arg]
    with pytest.raises(RulebookError, match="name a rulebook"):
        load_rulebook("")

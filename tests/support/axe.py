"""axe-core (vendored under ``tests/support/vendor/axe-core``, MPL-2.0, tests only).

``assert_accessible(page, name)`` runs axe on what the page shows now and fails on any
critical or serious violation, listing each rule with the elements it found. The script
is injected through the DevTools protocol (``page.evaluate``), which the pages'
Content-Security-Policy (no inline script) does not govern, so the pages are checked as
served, CSP and all.
"""

from __future__ import annotations

from pathlib import Path

AXE_SOURCE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
BLOCKING = ("critical", "serious")


def axe_violations(page, *, impacts=BLOCKING, exclude: list[str] | None = None) -> list[dict]:
    """axe's violations on the current page at the given impacts (WCAG 2.x A and AA rules)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SOURCE.read_text(encoding="utf-8"))
    context = {"exclude": [[sel] for sel in exclude]} if exclude else "document"
    result = page.evaluate(
        """async ([context]) => {
            const ctx = context === 'document' ? document : context;
            const r = await axe.run(ctx, {runOnly: {type: 'tag',
                values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}});
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}));
        }""",
        [context],
    )
    return [v for v in result if v["impact"] in impacts]


def assert_accessible(page, name: str, *, exclude: list[str] | None = None) -> None:
    """Fail when axe finds a critical or serious violation on ``page`` (``name`` says where)."""
    found = axe_violations(page, exclude=exclude)
    if found:
        lines = [f"{v['impact']}: {v['id']} ({v['help']}) at {', '.join(v['nodes'])}" for v in found]
        raise AssertionError(f"axe-core on {name}: {len(found)} violation(s)\n  " + "\n  ".join(lines))

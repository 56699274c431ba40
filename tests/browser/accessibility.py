"""WCAG 2.1 A and AA checks in the browser: axe-core, injected into the page as it stands.

axe-core is pinned in package.json and installed by `npm ci` (.ci/run does it). Only
critical and serious violations count, on the whole document: Streamlit's own markup is
the page a person meets, so nothing is left out. Two constructs of Streamlit's fail on
their own, and the app uses neither (`test_accessibility.py` shows both on a minimal
page, so the test notices when Streamlit fixes them):
- a menu with sections: `st.navigation` puts each section's heading and its links in a
  <ul> without wrapping each in an <li> ("list", "listitem"); the app's menu is one list;
- a disabled widget: Streamlit greys its label below AA contrast ("color-contrast"); the
  app says in a line of text why a control does not apply, instead of greying it.
"""

from __future__ import annotations

from pathlib import Path

from helpers import require

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
WCAG_AAA = ["wcag2aaa"]  # among them 7:1 text contrast, which the high-contrast option meets

# Every critical or serious failure, one per element, with where it is.
RUN = """async tags => {
    const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}});
    return result.violations
        .filter(v => v.impact === 'critical' || v.impact === 'serious')
        .flatMap(v => v.nodes.map(node => {
            const el = document.querySelector(node.target[0]);
            const box = el && el.closest('[data-testid="stElementContainer"]');
            const off = '[disabled], [aria-disabled="true"]';
            return {
                rule: v.id,
                html: node.html.slice(0, 200),
                why: node.failureSummary,
                in_menu: !!(el && el.closest('[data-testid="stSidebarNav"]')),
                in_disabled_widget: !!(box && box.querySelector(off)),
            };
        }));
}"""


def require_axe() -> None:
    require(AXE.exists(), f"{AXE} not found: npm ci (package.json pins axe-core)")


def failures(page, tags: list[str] = WCAG_21_AA) -> list[dict]:
    """Every critical or serious failure of the rules with these tags (WCAG 2.1 A/AA unless
    told), where it is."""
    require_axe()
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN, tags)


def streamlits_own(failure: dict) -> bool:
    """Whether a failure is one of the two kinds the constructs above make."""
    return (failure["rule"] in ("list", "listitem") and failure["in_menu"]) or (
        failure["rule"] == "color-contrast" and failure["in_disabled_widget"]
    )


def violations(page, tags: list[str] = WCAG_21_AA) -> list[str]:
    """Every failure in the document, each as "rule: element", for an assertion to print."""
    return [f"{f['rule']}: {f['html']}" for f in failures(page, tags)]

"""Classroom mode: a teacher starts a class, and every student who follows sees the
teacher's page and settings within a couple of seconds.

    app.py:     page = st.navigation(...); catch_up(page); page.run()
    setup():    class_controls(sidebar, place, presenter)

The class code is a control bound to the URL (`?room=h7m2w-x9f4r-3y8h6`), so a join link
opens the class and every page keeps it. The teacher's key stays in the teacher's
session, never in a URL: only that session can change what the room shows
(ffn_ui/classroom/store.py checks it). The teacher's page publishes its page and settings from
a polling fragment; a student's polling fragment sees a newer version and reruns the app,
and `catch_up` copies the settings into the session before any control is drawn, then
opens the teacher's page.

That switch is the one page change the server starts, not the browser, and the browser
may have sent a poll just before it heard of it. Streamlit runs such a poll for the page
the browser named, and tells the browser so, which wipes the page the switch drew: a
blank page that never comes back. So `watch` checks that its run belongs to the page the
last whole run drew, and if not, opens that page again.

A follower's settings travel through `st.session_state`, never through the address: a
control bound to the URL may not be set through `st.query_params`, so the page switch
names only the edited arrays (`w`, `x`), which no control binds, and every control writes
its own value back into the address as it is drawn.
"""

from __future__ import annotations

import re

import streamlit as st

from ffn_ui.classroom.room import (
    APPLIED,
    ARRAYS,
    FOLLOW,
    INLINE,
    LIVE,
    REVEALED,
    ROOM,
    SHOWN,
    SHOWN_HASH,
    STUDENT_SECONDS,
    TOP,
    VIEWED,
    VIEWING,
    applied,
    follows_key,
    session_code,
    store,
    teaching,
)
from ffn_ui.classroom.store import (
    ClassConnectionError,
    Look,
    RoomError,
    RoomGoneError,
    read_code,
)
from ffn_ui.classroom.teaching import (
    end_class,
    publish,
    start_class,
)
from ffn_ui.classroom.voter import voter
from ffn_ui.controls.url import bound_text, bound_toggle, forget_url_value
from ffn_ui.page.path import STEPS
from ffn_ui.streamlit_internals import fragment_page, page_hash
from ffn_ui.words import literal

# A code of an earlier version of the app: 16 URL-safe characters, or 12 of another alphabet.
OLD_CODE = re.compile(r"[A-Za-z0-9_-]{16}|[A-Za-z0-9]{4}([- ]?[A-Za-z0-9]{4}){2}")  # 4-4-4
MAX_TYPED = 30  # a code typed with spaces or dashes in any place


def followed() -> tuple[str, Look] | None:
    """The class this session follows, and what its room shows now; None when it teaches,
    explores alone or names no class it can reach (class_controls says why, later)."""
    code = session_code()
    if not code or teaching(code) or not st.session_state.get(FOLLOW, True):
        return None
    try:
        return code, store().look(code)
    except (RoomError, ClassConnectionError):
        return None


def catch_up(shown: st.Page, following: tuple[str, Look] | None) -> None:
    """Before the page runs: a following student takes the teacher's newer settings and
    page. Anything wrong with the class is said later, by class_controls."""
    state = st.session_state
    title = shown.title
    state[SHOWN], state[SHOWN_HASH] = title, page_id(shown)
    if following is None:
        return
    code, look = following
    if look.version <= applied(code):
        return
    state[APPLIED] = (code, look.version)
    state[ROOM] = code  # on a join link's first run, its control is not drawn yet
    for key, value in look.view.get("settings", {}).items():
        if follows_key(key) and state.get(key) != value:
            state[key] = value  # each control still checks its value as it is drawn
    arrays = carried_arrays(look.view.get("address", {}))
    page = next((s.page for s in STEPS if s.label == look.view.get("page")), None)
    if page and look.view.get("page") != title:
        st.switch_page(page, query_params=arrays)
    for url_key, raw in arrays.items():  # no control binds these keys
        st.query_params[url_key] = raw


def page_id(page: st.Page) -> str:
    """The id the browser names `page` by in every rerun it asks for."""
    return page_hash(page)


def stale_poll() -> bool:
    """Whether this run is a poll the browser sent for a page it had left: a fragment's
    run naming another page than the one the last whole run drew."""
    shown = st.session_state.get(SHOWN_HASH, "")
    named = fragment_page()
    return bool(named is not None and shown and named != shown)


def carried_arrays(address: object) -> dict[str, str]:
    """The teacher's edited arrays, as their link writes them; the session's own copy of
    any that differ is dropped, so that the page reads the link's (editing.stored_arrays)."""
    if not isinstance(address, dict):
        return {}
    arrays = {k: v for k, v in address.items() if k in ARRAYS and isinstance(v, str)}
    for url_key, raw in arrays.items():
        if raw != st.query_params.get(url_key):
            st.session_state.pop(ARRAYS[url_key], None)
    return arrays


def tidy_code() -> None:
    """A typed code in its written form: "K7M2 X9QP 4HZT" becomes "h7m2w-x9f4r-3y8h6"."""
    state = st.session_state
    state[ROOM] = read_code(state[ROOM]) or state[ROOM].strip()


def settle_code() -> None:
    """A code from the address in its written form, before its box is drawn."""
    raw = st.query_params.get(ROOM)
    code = read_code(raw)
    if code and code != raw and ROOM not in st.session_state:
        st.session_state[ROOM] = code
        forget_url_value(ROOM)


def class_controls(sidebar, place, presenter: bool, viewing: bool = False) -> None:
    """The sidebar's class section, and in `place` on the page, the class's one line;
    `viewing`: the page is the class view (ffn_ui/classroom/class_view.py)."""
    st.session_state[LIVE] = ""
    st.session_state[VIEWING] = viewing
    sidebar.subheader("Class")
    settle_code()
    typed = bound_text(
        "class code",
        ROOM,
        "",
        MAX_TYPED,
        sidebar,
        on_change=tidy_code,
        help="A teacher's join link fills it in, or type the code the teacher reads out; "
        "empty, you explore alone.",
    )
    problem = st.session_state.pop("class_problem", "")
    if problem:
        st.warning(problem)
    if not typed:
        sidebar.button(
            "Start a class",
            on_click=start_class,
            help="Students open the join link or scan the code, then follow your page live.",
        )
        return
    code = read_code(typed)
    if code is None:
        if OLD_CODE.fullmatch(typed):
            st.info(ended(typed))
        else:
            st.info(f"{literal(typed)} is not a class code; the app works as usual.")
        return
    if not reachable(code):
        return
    st.session_state[LIVE] = code  # the page's questions now count the class's votes
    if teaching(code):
        sidebar.button(
            "End the class",
            on_click=end_class,
            help="Every student's page says the class has ended, and goes on working.",
        )
        with place:
            publish(code, presenter)
    else:
        if FOLLOW in st.session_state:
            # The class view draws its own toggle, not the page's: the new toggle takes the
            # session's value, which a tick on the page's own toggle just set (else it
            # would take the one it last showed, and a tick would need a second).
            st.session_state[FOLLOW] = st.session_state[FOLLOW]
        following = bound_toggle(
            "Follow the teacher", FOLLOW, True, sidebar, help="Untick to explore alone."
        )
        st.session_state[INLINE] = True  # the page below reads what this run's poll reads
        with place:
            if following:
                to_the_top()
            watch(code, following)


# A follower's browser keeps where it had scrolled when the teacher changes page; the new
# page starts at its top, with its title and the banner, not halfway down.
scroll_to_top = st.components.v2.component(
    "ffn_scroll_to_top",
    js="""export default function() {
      const main = document.querySelector('[data-testid="stMain"]');
      if (main) main.scrollTo({ top: 0 });
    }""",
    isolate_styles=False,
)


def to_the_top() -> None:
    """Once per page a follower is brought to: their page starts at its top."""
    state = st.session_state
    page = state.get(SHOWN, "")
    if state.get(TOP) != page:
        state[TOP] = page
        scroll_to_top(data={"page": page})


def ended(code: str) -> str:
    return f"The class {literal(code)} has ended, or its code is wrong; the app works as usual."


def reachable(code: str) -> bool:
    """Whether the class is there; if not, a note, and the app works as usual."""
    try:
        if store().exists(code):
            return True
        st.info(ended(code))
    except ClassConnectionError as err:
        st.warning(f"{err} Your own pages work as usual.")
    return False


@st.fragment(run_every=STUDENT_SECONDS)
def watch(code: str, following: bool) -> None:
    """A student's page: when the teacher changed something, or revealed an answer, rerun
    to catch up; and a line that says whom the page follows."""
    state = st.session_state
    try:
        look = store().look(code, voter(), following)
    except RoomGoneError:
        st.rerun()  # the class has ended: the whole page says so, and stops looking
    except ClassConnectionError as err:
        st.warning(f"{err} Your own page works as usual.")
        return
    page = next((s.page for s in STEPS if s.label == state.get(SHOWN)), None)
    if page and stale_poll():  # this poll wiped the page the browser shows: draw it again
        st.switch_page(page, query_params=carried_arrays(look.view.get("address", {})))
    if following and look.version > applied(code):
        st.rerun()
    inline = state.pop(INLINE, False)
    if look.revealed != state.get(REVEALED, frozenset()):
        state[REVEALED] = look.revealed
        if not inline:
            st.rerun()  # the teacher revealed an answer: the page shows it
    where = look.view.get("page") or "Home"
    if following and state.get(VIEWING):
        st.info(
            f"Following the teacher in class {literal(code)}, on {where}: {VIEWED}. "
            "Untick “Follow the teacher” to explore alone.",
            icon=":material/cast:",
        )
    elif following:
        st.caption(f"Following the teacher in class {literal(code)}: they are on {where}.")
    else:
        st.caption(f"Class {literal(code)}: the teacher is on {where}. You are exploring alone.")

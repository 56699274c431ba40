"""Classroom mode: a teacher starts a class, and every student who follows sees the
teacher's page and settings within a couple of seconds.

    app.py:     page = st.navigation(...); catch_up(page.title); page.run()
    setup():    class_controls(sidebar, presenter)

The class code is a control bound to the URL (`?room=…`), so a join link opens the class
and every page keeps it. The teacher's key stays in the teacher's session, never in a URL:
only that session can change what the room shows (ffn_ui/room_store.py checks it). The
teacher's page publishes its settings from a polling fragment; a student's polling
fragment sees a newer version and reruns the app, and `catch_up` copies the settings in
before any control is drawn, then opens the teacher's page.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import segno
import streamlit as st

from ffn_ui.path import STEPS
from ffn_ui.room_store import (
    CODE_PATTERN,
    ClassConnectionError,
    MemoryRoomStore,
    RedisRoomStore,
    RoomError,
    RoomGoneError,
)
from ffn_ui.url import REGISTRY_KEY, bound_text, bound_toggle, literal

ROOM = "room"  # the class code's control and URL key
FOLLOW = "follow"  # the student's "follow the teacher" toggle
TEACHER = "class_teacher_key"  # session only: the key of the class this session teaches
APPLIED = "class_version"  # session only: the room's version this session last copied in
SHOWN = "class_page"  # session only: the title of the page this run shows
LIVE = "class_live"  # session only: the code of the class this run takes part in, or ""
REVEALED = "class_revealed"  # session only: the question the teacher last revealed
OWN = ("room", "follow", "presenter", "contrast")  # a student's own settings, not followed
TEACHER_SECONDS = 0.5  # how often the teacher's page publishes its settings
STUDENT_SECONDS = 1.0  # how often a student's page looks for a newer version


@st.cache_resource(max_entries=1, show_spinner=False)
def store() -> MemoryRoomStore | RedisRoomStore:
    """The rooms: in Redis when FFN_REDIS_URL is set (several server processes), else in
    this process (Streamlit Community Cloud runs one)."""
    url = os.environ.get("FFN_REDIS_URL")
    return RedisRoomStore(url) if url else MemoryRoomStore()


def teaching(code: str) -> bool:
    return bool(code) and st.session_state.get(TEACHER, ("", ""))[0] == code


def followed(key: str) -> bool:
    """Whether a class follows the teacher's value of `key`: a control's setting, not a
    student's own display or guesses, nor the app's own bookkeeping."""
    return key not in OWN and key != REGISTRY_KEY and not key.startswith(("guess", "class_"))


def settings() -> dict[str, object]:
    """This session's bound settings that a class follows."""
    state = st.session_state
    return {
        key: state[key]
        for key in state.get(REGISTRY_KEY, {})
        if key in state
        and followed(key)
        and isinstance(state[key], str | int | float | bool | list)
    }


def catch_up(title: str) -> None:
    """Before the page runs: a following student takes the teacher's newer settings and
    page. Anything wrong with the class is said later, by class_controls."""
    state = st.session_state
    state[SHOWN] = title
    code = state.get(ROOM) or st.query_params.get(ROOM, "")
    if not CODE_PATTERN.fullmatch(code or "") or teaching(code) or not state.get(FOLLOW, True):
        return
    try:
        version, view = store().view(code)
    except (RoomError, ClassConnectionError):
        return
    if version <= state.get(APPLIED, 0):
        return
    state[APPLIED] = version
    for key, value in view.get("settings", {}).items():
        if followed(key) and state.get(key) != value:
            state[key] = value  # each control still checks its value as it is drawn
    page = next((s.page for s in STEPS if s.label == view.get("page")), None)
    if page and view.get("page") != title:
        st.switch_page(page, query_params={ROOM: code})  # the code's control is not drawn yet


def start_class() -> None:
    """A new room for this session, or the one it already teaches: one room per session."""
    state = st.session_state
    try:
        if TEACHER in state and store().exists(state[TEACHER][0]):
            code, key = state[TEACHER]
        else:
            code, key = store().create()
    except (RoomError, ClassConnectionError) as err:
        state["class_problem"] = str(err)
        return
    state.update({TEACHER: (code, key), ROOM: code})


def end_class() -> None:
    """The teacher's "End the class": the room goes, and this session explores alone."""
    state = st.session_state
    code, key = state[TEACHER]
    try:
        store().end(code, key)
    except ClassConnectionError as err:
        state["class_problem"] = f"{err} The class goes on; press “End the class” again."
        return
    except RoomError:
        pass  # it had ended already
    del state[TEACHER]
    state[ROOM] = ""


def class_controls(sidebar, presenter: bool) -> None:
    """The sidebar's class section, and on the page, what the class needs to see."""
    st.session_state[LIVE] = ""
    sidebar.subheader("Class")
    code = bound_text(
        "class code",
        ROOM,
        "",
        16,
        sidebar,
        help="A teacher's join link fills it in; empty, you explore alone.",
    )
    problem = st.session_state.pop("class_problem", "")
    if problem:
        st.warning(problem)
    if not code:
        sidebar.button(
            "Start a class",
            on_click=start_class,
            help="Students open the join link or scan the code, then follow your page live.",
        )
        return
    if not CODE_PATTERN.fullmatch(code):
        st.info(f"{literal(code)} is not a class code; the app works as usual.")
        return
    if not reachable(code):
        return
    st.session_state[LIVE] = code  # the page's questions now count the class's votes
    if teaching(code):
        join_panel(code, presenter)
        publish(code)
    else:
        following = bound_toggle(
            "Follow the teacher", FOLLOW, True, sidebar, help="Untick to explore alone."
        )
        watch(code, following)


def reachable(code: str) -> bool:
    """Whether the class is there; if not, a note, and the app works as usual."""
    try:
        if store().exists(code):
            return True
        st.info(
            f"The class {literal(code)} has ended, or its code is wrong; the app works as usual."
        )
    except ClassConnectionError as err:
        st.warning(f"{err} Your own pages work as usual.")
    return False


def join_link(code: str) -> str:
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    return f"{parts.scheme}://{parts.netloc}/?{ROOM}={code}"


def join_panel(code: str, presenter: bool) -> None:
    link = join_link(code)
    with st.expander(f"Class {literal(code)}: students join at {literal(link)}", expanded=True):
        left, right = st.columns([1, 1] if presenter else [1, 2])
        qr = segno.make(link, error="m").svg_inline(scale=10)
        left.image(qr, width=320 if presenter else 200)  # big enough to scan across a room
        right.markdown(f"Open {literal(link)} or scan the code. Class code: {literal(code)}.")
        right.caption("A student who ticks “Follow the teacher” sees this page and its settings.")
        right.button(
            "End the class",
            on_click=end_class,
            help="Every student's page says the class has ended, and goes on working.",
        )


def asked(call, *args):
    """call(*args) on the room store; if the class is gone or out of reach, a note on the
    page and None, and the page goes on as usual."""
    try:
        return call(*args)
    except ClassConnectionError as err:
        st.warning(f"{err} Your own page works as usual.")
    except RoomError as err:
        st.info(str(err))
    return None


@st.fragment(run_every=TEACHER_SECONDS)
def publish(code: str) -> None:
    """The teacher's page and settings, sent to the room when they change."""
    key = st.session_state[TEACHER][1]
    view = {"page": st.session_state.get(SHOWN, ""), "settings": settings()}
    version = asked(store().show, code, key, view)
    if version is not None:
        st.caption(f"Your class sees this page (update {version}).")


@st.fragment(run_every=STUDENT_SECONDS)
def watch(code: str, following: bool) -> None:
    """A student's page: when the teacher changed something, rerun to catch up."""
    try:
        version, view, revealed = store().look(code)
    except RoomGoneError:
        st.rerun()  # the class has ended: the whole page says so, and stops looking
    except ClassConnectionError as err:
        st.warning(f"{err} Your own page works as usual.")
        return
    if following and version > st.session_state.get(APPLIED, 0):
        st.rerun()
    if revealed and revealed != st.session_state.get(REVEALED, ""):
        st.session_state[REVEALED] = revealed
        st.rerun()  # the teacher revealed an answer: show it
    where = view.get("page") or "Home"
    st.caption(
        f"Class {literal(code)}: the teacher is on {where}."
        + ("" if following else " You are exploring alone.")
    )

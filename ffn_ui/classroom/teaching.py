"""The teacher's side of a class: starting and ending it, the class line (the code in large
type, who is here, the join link and its QR code, and the address students can open), and
what the teacher's page publishes: its page and settings twice a second, and after each
whole run what it drew (recorded, for the class view).
"""

from __future__ import annotations

import contextlib
import os
import socket
from urllib.parse import urlsplit

import segno
import streamlit as st

from ffn_ui.classroom import recording
from ffn_ui.classroom.room import (
    ARRAYS,
    QR,
    RERAN,
    REVEALED,
    ROOM,
    SHARED,
    SHOWN,
    STUDENTS,
    TEACHER,
    TEACHER_SECONDS,
    asked,
    client_address,
    session_code,
    settings,
    store,
    teaching,
)
from ffn_ui.classroom.store import (
    CODE_PATTERN,
    ClassConnectionError,
    RoomError,
    view_json,
)
from ffn_ui.process_wide import once_per_process
from ffn_ui.words import literal


def start_class() -> None:
    """A new room for this session, or the one it already teaches: one room per session."""
    state = st.session_state
    try:
        if TEACHER in state and store().exists(state[TEACHER][0]):
            code, key = state[TEACHER]
        else:
            code, key = store().create(client_address())
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


PUBLIC_URL = "FFN_PUBLIC_URL"  # the address students open, when the host knows it better
LOOPBACK = ("localhost", "127.", "::1", "0.0.0.0")  # addresses only this machine reaches


@once_per_process()
def network_address() -> str | None:
    """This machine's address on its network, as `streamlit run` prints it beside "Network
    URL" (the address a datagram to the outside would leave from; nothing is sent), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # a documentation address: never reached
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith(LOOPBACK) else address


def join_site() -> tuple[str, str]:
    """(the address students open, a note for the teacher): FFN_PUBLIC_URL when set, else
    the address this teacher's browser uses; a loopback address (localhost) reaches no
    student's device, so then this machine's network address, and a note that says so."""
    public = os.environ.get(PUBLIC_URL, "").strip().rstrip("/")
    if public.startswith(("http://", "https://")):
        return public, ""
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    if not (parts.hostname or "localhost").startswith(LOOPBACK):
        return f"{parts.scheme}://{parts.netloc}", ""
    seen = literal(parts.netloc)
    network = network_address()
    if network is None:
        return f"{parts.scheme}://{parts.netloc}", (
            f"Your browser opened the app at {seen}, which only this computer reaches, and "
            f"this computer has no network address: set {PUBLIC_URL} to the address students "
            "can open."
        )
    site = f"{parts.scheme}://{network}" + (f":{parts.port}" if parts.port else "")
    return site, (
        f"Your browser opened the app at {seen}, which only this computer reaches: students "
        f"open this computer's network address, {literal(urlsplit(site).netloc)} (the Network "
        "URL `streamlit run` prints), on the same network."
    )


def published_view(code: str) -> tuple[dict, str]:
    """What the class sees of this page, and a note if the edited arrays are too long to
    send (then students keep their own)."""
    state = st.session_state
    content = state.get(SHARED, {}).get(code, ("", {}))[0]
    view = {"page": state.get(SHOWN, ""), "settings": settings(), "content": content}
    address = {k: st.query_params[k] for k in ARRAYS if k in st.query_params}
    try:
        view_json({**view, "address": address})
    except RoomError:
        return view, " Your edited numbers are too long to send: students see their own."
    return {**view, "address": address}, ""


def big_code(code: str) -> str:
    """A class code in large type (the page's style sizes `ffn-code`)."""
    if not CODE_PATTERN.fullmatch(code):
        raise ValueError("not a class code")
    return f'<span class="ffn-code">{code}</span>'


def students_text(students: int, following: int) -> str:
    if not students:
        return "no students yet"
    return f"{students} student{'s' if students != 1 else ''}, {following} following"


@st.fragment(run_every=TEACHER_SECONDS)
def publish(code: str, presenter: bool) -> None:
    """The teacher's page and settings, sent to the room; and one line for the class:
    its code, who is here, and the QR code on request (not the page's words)."""
    with recording.paused():
        class_line(code, presenter)


def class_line(code: str, presenter: bool) -> None:
    state = st.session_state
    # A whole run sends its view once the page is drawn (share); here it only reads back.
    view, note = published_view(code) if recording.recording() is None else (None, "")
    if view is not None and unshared(code, view["settings"]):
        st.rerun()  # a control in a fragment changed a setting: the whole page draws it
    seen = asked(store().show, code, state[TEACHER][1], view)
    if seen is None:
        return
    state[STUDENTS], state[REVEALED] = seen.students, seen.revealed
    site, warning = join_site()
    link = f"{site}/?{ROOM}={code}"
    line, toggle = st.columns([4, 1] if presenter else [5, 2], vertical_alignment="center")
    where = f" · join at {literal(urlsplit(link).netloc)}"
    # The code in large type, to read aloud: it is of CODE_ALPHABET alone, so safe as HTML.
    text = f"Class {big_code(code)} · {students_text(seen.students, seen.following)}{where}."
    line.markdown(text + note, unsafe_allow_html=True)  # one line, under the lede
    shown = toggle.toggle("QR code", key=QR)  # the join link, to scan
    if warning and (shown or not presenter):  # the teacher's to read, not the room's
        st.caption(warning)
    if shown:
        left, right = st.columns([1, 1] if presenter else [1, 2])
        qr = segno.make(link, error="m").svg_inline(scale=10)
        left.image(qr, width=320 if presenter else 200)  # big enough to scan across a room
        right.markdown(f"## {big_code(code)}", unsafe_allow_html=True)  # to read out and type
        right.markdown(f"Open {literal(link)} or scan the code. Class code: {literal(code)}.")
        right.caption("A student who keeps “Follow the teacher” ticked sees this page live.")


@contextlib.contextmanager
def recorded():
    """A teacher's whole run: what the page draws is recorded, then shared with the class
    with the page's settings, so that students see the two together. All it needs of the
    session is read before the page runs: after a page's st.stop(), reading the session
    stops the run again."""
    state = st.session_state
    code = session_code()
    if not teaching(code):
        yield
        return
    key = state[TEACHER][1]
    recorder = recording.start()
    shared = state.setdefault(SHARED, {})
    view, _ = published_view(code)  # this run's settings, as the browser sent them
    rooms = store()
    try:
        with recorder.listening():  # the page's words, as it sends them
            yield
    finally:
        share(rooms, code, key, recorder.finish(), shared, view)


def unshared(code: str, settings: dict) -> bool:
    """Whether the page's settings changed since its figures were last shared (a control
    in a fragment changed one), the first time these settings are seen: the class view
    needs a whole run of the page at them. Settings a whole run keeps changing do not
    rerun it again and again."""
    state = st.session_state
    if state.get(SHARED, {}).get(code, ("", settings))[1] == settings:
        return False
    if state.get(RERAN) == settings:
        return False
    state[RERAN] = settings
    return True


def share(rooms, code: str, key: str, made: tuple[str, str], shared: dict, view: dict) -> None:
    """What the page drew goes to the room (once per change), then the view naming it."""
    digest, text = made
    if shared.get(code, ("", {}))[0] != digest:
        try:
            rooms.share(code, key, text)
        except RoomError:
            digest = ""  # too long to send, or the class ended: students run the page
        except ClassConnectionError:
            return  # the class line says so on its next publishing
    shared.clear()
    shared[code] = (digest, view["settings"])
    with contextlib.suppress(RoomError, ClassConnectionError):  # the class line says so next
        rooms.show(code, key, {**view, "content": digest})

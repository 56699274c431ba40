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

import contextlib
import os
import re
import socket
from urllib.parse import urlsplit

import segno
import streamlit as st

from ffn_ui.classroom import recording
from ffn_ui.classroom.memory_store import MemoryRoomStore
from ffn_ui.classroom.redis_store import RedisRoomStore
from ffn_ui.classroom.store import (
    CODE_PATTERN,
    ClassConnectionError,
    Look,
    RoomError,
    RoomGoneError,
    read_code,
    view_json,
)
from ffn_ui.classroom.voter import voter
from ffn_ui.controls.url import REGISTRY_KEY, bound_text, bound_toggle, forget_url_value, literal
from ffn_ui.page.path import STEPS
from ffn_ui.process_wide import once_per_process
from ffn_ui.streamlit_internals import fragment_page, page_hash

ROOM = "room"  # the class code's control and URL key
FOLLOW = "follow"  # the student's "follow the teacher" toggle
TEACHER = "class_teacher_key"  # session only: (code, key) of the class this session teaches
APPLIED = "class_version"  # session only: (code, version) of the view this session copied in
SHOWN = "class_page"  # session only: the title of the page this run shows
SHOWN_HASH = "class_page_hash"  # session only: that page's id, as the browser names it
LIVE = "class_live"  # session only: the code of the class this run takes part in, or ""
REVEALED = "class_revealed"  # session only: the questions the teacher has revealed
STUDENTS = "class_students"  # session only: the teacher's last count of students present
QR = "class_qr"  # session only: the teacher's "Show the QR code" toggle
INLINE = "class_inline"  # session only: the student's poll runs inside a whole-page run
SHARED = "class_shared"  # session only: {code: (digest, settings)} of the teacher's last share
RERAN = "class_reran"  # session only: the settings a publishing last reran the page for
VIEWING = "class_viewing"  # session only: this student's page is the class view
TOP = "class_at_top"  # session only: the page a follower was last brought to the top of
VIEWED = "you see their figures and questions"  # what the class view's banner says of it
OWN = ("room", "follow", "presenter", "contrast")  # a student's own settings, not followed
# The edited arrays a page keeps in the address and the session (ffn_ui/page/editing.py): the
# address's key, and the session's. A class follows them as the teacher's link writes them.
ARRAYS = {"w": "hand_weights", "x": "edited_x"}
# A code of an earlier version of the app: 16 URL-safe characters, or 12 of another alphabet.
OLD_CODE = re.compile(r"[A-Za-z0-9_-]{16}|[A-Za-z0-9]{4}([- ]?[A-Za-z0-9]{4}){2}")  # 4-4-4
MAX_TYPED = 30  # a code typed with spaces or dashes in any place
TEACHER_SECONDS = 0.5  # how often the teacher's page publishes its settings
STUDENT_SECONDS = 1.0  # how often a student's page looks for a newer version


@once_per_process()
def store() -> MemoryRoomStore | RedisRoomStore:
    """The rooms: in Redis when FFN_REDIS_URL is set (several server processes), else in
    this process (Streamlit Community Cloud runs one); never in a cache a visitor can clear."""
    url = os.environ.get("FFN_REDIS_URL")
    return RedisRoomStore(url) if url else MemoryRoomStore()


def teaching(code: str) -> bool:
    return bool(code) and st.session_state.get(TEACHER, ("", ""))[0] == code


def follows_key(key: str) -> bool:
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
        and follows_key(key)
        and isinstance(state[key], str | int | float | bool | list)
    }


def session_code() -> str:
    """The class this session names (its box, or the address before the box is drawn),
    in the code's written form; "" for none or for text that is not a code."""
    return read_code(st.session_state.get(ROOM) or st.query_params.get(ROOM, "")) or ""


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


def applied(code: str) -> int:
    """The version of this class's view this session last copied in (0: none yet; another
    class's count starts again)."""
    copied, version = st.session_state.get(APPLIED, ("", 0))
    return version if copied == code else 0


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


def client_address() -> str:
    """The address the browser connects from, as far as this server can tell; "" for this
    machine itself. Behind a proxy, it is the address the proxy saw: uvicorn, which
    Streamlit runs on, reads it from X-Forwarded-For only when the connection comes from a
    proxy it trusts (FORWARDED_ALLOW_IPS, 127.0.0.1 unless set, as deploy/nginx.conf runs),
    and takes the last address that proxy added, so a client's own header changes nothing."""
    address = st.context.ip_address
    return address if isinstance(address, str) else ""


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
    line, toggle = st.columns([5, 4] if presenter else [5, 2], vertical_alignment="center")
    where = "" if presenter else f" · join at {literal(urlsplit(link).netloc)} with the code"
    # The code in large type, to read aloud: it is of CODE_ALPHABET alone, so safe as HTML.
    text = f"Class {big_code(code)} · {students_text(seen.students, seen.following)}{where}."
    line.markdown(text + note, unsafe_allow_html=True)  # beside the lede's row
    if warning:
        st.caption(warning)
    if toggle.toggle("Show the QR code", key=QR):
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
            f"You are following the teacher in class {literal(code)}, on {where}: {VIEWED}, "
            "and they keep the controls. To explore this page yourself, untick “Follow the "
            "teacher” in the sidebar (when it is closed, » at the top left opens it); tick it "
            "again to catch up.",
            icon=":material/cast:",
        )
    elif following:
        st.caption(f"Following the teacher in class {literal(code)}: they are on {where}.")
    else:
        st.caption(f"Class {literal(code)}: the teacher is on {where}. You are exploring alone.")

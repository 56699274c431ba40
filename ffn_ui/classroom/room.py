"""A session and its class: the session keys a class keeps, the room store, and what
this session is in it (teacher, student, or neither). ffn_ui/classroom/teaching.py is the
teacher's side, follow.py the student's.
"""

from __future__ import annotations

import os

import streamlit as st

from ffn_ui.classroom.memory_store import MemoryRoomStore
from ffn_ui.classroom.redis_store import RedisRoomStore
from ffn_ui.classroom.store import (
    ClassConnectionError,
    RoomError,
    read_code,
)
from ffn_ui.controls.url import REGISTRY_KEY
from ffn_ui.process_wide import once_per_process

ROOM = "room"  # the class code's control and URL key
FOLLOW = "follow"  # the student's "follow the teacher" toggle
TEACHER = "class_teacher_key"  # session only: (code, key) of the class this session teaches
APPLIED = "class_version"  # session only: (code, version) of the view this session copied in
SHOWN = "class_page"  # session only: the title of the page this run shows
SHOWN_HASH = "class_page_hash"  # session only: that page's id, as the browser names it
LIVE = "class_live"  # session only: the code of the class this run takes part in, or ""
REVEALED = "class_revealed"  # session only: the questions the teacher has revealed
STUDENTS = "class_students"  # session only: the teacher's last count of students present
QR = "class_qr"  # session only: the teacher's "QR code" toggle
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


def applied(code: str) -> int:
    """The version of this class's view this session last copied in (0: none yet; another
    class's count starts again)."""
    copied, version = st.session_state.get(APPLIED, ("", 0))
    return version if copied == code else 0


def client_address() -> str:
    """The address the browser connects from, as far as this server can tell; "" for this
    machine itself. Behind a proxy, it is the address the proxy saw: uvicorn, which
    Streamlit runs on, reads it from X-Forwarded-For only when the connection comes from a
    proxy it trusts (FORWARDED_ALLOW_IPS, 127.0.0.1 unless set, as deploy/nginx.conf runs),
    and takes the last address that proxy added, so a client's own header changes nothing."""
    address = st.context.ip_address
    return address if isinstance(address, str) else ""


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

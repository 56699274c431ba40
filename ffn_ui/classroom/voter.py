"""A student's anonymous id in a class: one per browser, as far as the server can tell,
so that a second tab or a reload replaces that browser's vote rather than adding one."""

from __future__ import annotations

import binascii
import hashlib
import secrets

import streamlit as st

XSRF_COOKIE = "_streamlit_xsrf"
VOTER = "class_voter"  # session only: this session's anonymous id in the class


def voter() -> str:
    """This browser's anonymous id in a class, never shown: a digest of the token in the
    cookie Streamlit gives each browser (against cross-site requests), so that a second tab
    or a reload votes as the same student. Every browser that loaded the app has that
    cookie; a client without it is a script, and counts as one student per address (20
    such sessions from one client once filled Build it's chart as 20 students). Without
    the cookie or an address (this machine itself), the session's own id."""
    if VOTER not in st.session_state:
        token = browser_token(st.context.cookies.get(XSRF_COOKIE))
        address = st.context.ip_address
        if token:
            who = "b-" + hashlib.sha256(b"ffn-voter|" + token).hexdigest()[:24]
        elif isinstance(address, str) and address:
            who = "a-" + hashlib.sha256(b"ffn-address|" + address.encode()).hexdigest()[:24]
        else:
            who = secrets.token_urlsafe(12)
        st.session_state[VOTER] = who
    return st.session_state[VOTER]


def browser_token(cookie: str | None) -> bytes | None:
    """The token in Streamlit's XSRF cookie: "2|mask|masked token|time" (the token XORed
    with a 4-byte mask that may change from one page load to the next) or the bare token;
    None for anything else."""
    value = (cookie or "").strip("\"'")
    try:
        if value.startswith("2|"):
            _, mask_hex, masked_hex, _ = value.split("|")
            mask, masked = binascii.a2b_hex(mask_hex), binascii.a2b_hex(masked_hex)
            if len(mask) != 4 or not masked:
                return None
            return bytes(b ^ mask[k % 4] for k, b in enumerate(masked))
        return binascii.a2b_hex(value) if value else None
    except (ValueError, binascii.Error):
        return None

"""Where the app reaches into Streamlit's private parts: one door, each hook named here.

Streamlit has no public API for these. Each hook is checked by
tests/ui/test_streamlit_internals.py, which fails naming the hook when an upgrade of
Streamlit moves or renames what it relies on.

- `refuse_clear_cache`: any visitor's websocket may send `BackMsg{clear_cache: true}`,
  which makes Streamlit clear every `st.cache_data` and `st.cache_resource` for every
  session on the server (the developer menu's "Clear cache"; `toolbarMode = "viewer"`
  hides the menu item, but the server still obeys the message). On a shared server one
  visitor would make everyone's next page rebuild what the caches held. The app never
  sends it, so the server ignores it.
"""

from __future__ import annotations

import logging

from streamlit.runtime.app_session import AppSession

HANDLER = "_handle_clear_cache_request"  # AppSession's handler of that message
_LOGGER = logging.getLogger(__name__)


def refused_clear_cache(session: AppSession) -> None:
    """What the server does with a visitor's clear_cache message: nothing but a log line."""
    _LOGGER.info("A visitor asked to clear every cache; refused (ffn_ui/streamlit_internals.py).")


def refuse_clear_cache() -> bool:
    """From now on, this process ignores clear_cache messages; False (and an error in the
    server's log) if Streamlit no longer has the handler. The rooms and the models do not
    live in Streamlit's caches (ffn_ui/process_wide.py), so they survive even then."""
    if not callable(getattr(AppSession, HANDLER, None)):
        _LOGGER.error("Streamlit's AppSession has no %s: clear_cache is obeyed.", HANDLER)
        return False
    setattr(AppSession, HANDLER, refused_clear_cache)
    return True

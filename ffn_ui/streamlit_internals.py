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
- `elements_sent`: every element the running script sends, as it sends it, read where
  Streamlit hands each message to the session (`ScriptRunContext.enqueue`). A teacher's
  page records its words this way for the class view (ffn_ui/classroom/recording.py):
  every heading, sentence, caption, metric and note a page draws, whichever page.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator

from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.scriptrunner import get_script_run_ctx

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


SEND = "enqueue"  # the method of a run's context that each message goes through


@contextlib.contextmanager
def elements_sent(seen: Callable[[list[int], Element], None]) -> Iterator[bool]:
    """Inside, seen(place, element) for each new element this script run sends, before it
    goes (place: its delta path, [0, …] the page, [1, …] the sidebar). Yields False (and
    sees nothing) outside a script run, or if Streamlit's context has no such method."""
    ctx = get_script_run_ctx()
    send = getattr(ctx, SEND, None)
    if ctx is None or not callable(send):
        yield False
        return

    def watched(msg: ForwardMsg) -> None:
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            seen(list(msg.metadata.delta_path), msg.delta.new_element)
        send(msg)

    setattr(ctx, SEND, watched)  # this run's context alone
    try:
        yield True
    finally:
        vars(ctx).pop(SEND, None)

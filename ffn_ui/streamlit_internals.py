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
- `history_navigation`: whether this run is the browser's Back or Forward
  (`ScriptRunContext.is_history_navigation`), and treating it as a click on the menu
  (ffn_ui/page/history.py).
- `fragment_page`: the page a fragment's run names (`fragment_ids_this_run`,
  `page_script_hash`), to tell a poll sent for a page the browser left
  (ffn_ui/classroom/follow.py); `page_hash`: the id a browser names a page by
  (`st.Page._script_hash`).
- `kept_by_widgets`: the keys whose values Streamlit keeps under their widgets
  (`SessionState._old_state`), and `forget_seed`: an address value Streamlit would
  seed a bound widget from, dropped (`QueryParams._initial_query_params`,
  `remove_param`) (ffn_ui/controls/url.py).
- `session_files`: the files Streamlit keeps for one session's uploader, oldest first
  (`UploadedFileManager.file_storage` under its `_lock`) (ffn_ui/page/server.py).
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


HISTORY = "is_history_navigation"  # a run's context: the browser went Back or Forward


def history_navigation(forget: bool = False) -> bool:
    """Whether this run is the browser's Back or Forward; `forget`: and from here on, run
    it as any other (a click on the menu)."""
    ctx = get_script_run_ctx()
    navigated = bool(getattr(ctx, HISTORY, False))
    if navigated and forget:
        setattr(ctx, HISTORY, False)
    return navigated


def fragment_page() -> str | None:
    """The page (its hash) this run names, if it is a fragment's run; None for a whole run."""
    ctx = get_script_run_ctx()
    if ctx is None or not ctx.fragment_ids_this_run:
        return None
    return ctx.page_script_hash


PAGE_HASH = "_script_hash"  # st.Page: the id the browser names a page by


def page_hash(page: object) -> str:
    """The id a browser names `page` by in every rerun it asks for."""
    return getattr(page, PAGE_HASH, "")


OLD_STATE = "_old_state"  # SessionState: the values kept under their widgets' ids


def kept_by_widgets() -> set[str] | None:
    """The keys whose values Streamlit keeps under their widgets now; None if that cannot
    be read (then every value is treated as not kept)."""
    ctx = get_script_run_ctx()
    inner = getattr(getattr(ctx, "session_state", None), "_state", None)
    kept = getattr(inner, OLD_STATE, None)
    return set(kept) if isinstance(kept, dict) else None


SEEDS, REMOVE = "_initial_query_params", "remove_param"  # QueryParams


def forget_seed(key: str) -> None:
    """Stop Streamlit seeding a bound control from the address's value of `key`, and drop
    that value from the address (Streamlit's own way to clear an invalid value)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with ctx.session_state.query_params() as params:
        seeds = getattr(params, SEEDS, None)
        if isinstance(seeds, dict):
            seeds.pop(key, None)
        remove = getattr(params, REMOVE, None)
        if callable(remove):
            remove(key)


def session_files(manager: object, session_id: str) -> list[str] | None:
    """The ids of the files Streamlit keeps for one session, oldest first (a dict keeps its
    order of insertion); None for a store of another kind."""
    storage, lock = getattr(manager, "file_storage", None), getattr(manager, "_lock", None)
    if not isinstance(storage, dict) or lock is None:
        return None
    with lock:
        return list(storage.get(session_id, {}))

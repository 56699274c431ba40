"""Each hook into Streamlit's private parts (ffn_ui/streamlit_internals.py), checked so that
an upgrade of Streamlit that moves what it relies on fails here, naming the hook."""

from __future__ import annotations

import streamlit as st
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.runtime.app_session import AppSession

from ffn_ui import streamlit_internals as internals


class Bare(AppSession):
    """An AppSession made without a server: handle_backmsg reads nothing else of it for a
    clear_cache message, and there is nothing to tidy when it goes."""

    def __del__(self) -> None:
        pass


def test_hook_clear_cache_the_server_ignores_a_visitors_clear_cache_message(monkeypatch):
    handler = internals.HANDLER
    assert callable(getattr(AppSession, handler, None)), f"AppSession.{handler} is gone"
    monkeypatch.setattr(AppSession, handler, getattr(AppSession, handler))  # undone after
    made = []

    @st.cache_resource(max_entries=1)
    def kept() -> list:
        made.append(1)
        return made

    kept()
    assert internals.refuse_clear_cache()
    session = object.__new__(Bare)
    msg = BackMsg()
    msg.clear_cache = True
    session.handle_backmsg(msg)  # as the server does with a visitor's message
    kept()
    assert made == [1], f"a clear_cache message still clears the caches ({handler})"


def test_hook_clear_cache_is_what_the_message_calls(monkeypatch):
    """The message reaches the handler the app replaces, and nothing else clears."""
    called = []
    monkeypatch.setattr(AppSession, internals.HANDLER, lambda self: called.append(self))
    session = object.__new__(Bare)
    msg = BackMsg()
    msg.clear_cache = True
    session.handle_backmsg(msg)
    assert called == [session], f"clear_cache no longer goes to AppSession.{internals.HANDLER}"


def test_hook_elements_sent_sees_each_element_a_run_sends_in_order():
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from ffn_ui.streamlit_internals import elements_sent

        seen = []
        with elements_sent(lambda place, element: seen.append(element.WhichOneof("type"))) as on:
            st.subheader("A heading")
            st.caption("A caption")
            st.metric("a number", "4.4e-16")
            st.sidebar.markdown("in the sidebar")
        st.session_state["seen"], st.session_state["on"] = seen, on

    at = AppTest.from_function(script, default_timeout=30).run()
    assert at.session_state["on"], f"ScriptRunContext.{internals.SEND} is gone"
    assert at.session_state["seen"] == ["heading", "markdown", "metric", "markdown"]


def test_hook_history_navigation_and_fragment_page_read_a_run_s_context():
    import dataclasses

    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

    fields = {f.name for f in dataclasses.fields(ScriptRunContext)}
    for name in (internals.HISTORY, "fragment_ids_this_run"):
        assert name in fields, f"ScriptRunContext.{name} is gone (streamlit_internals)"
    assert isinstance(ScriptRunContext.page_script_hash, property), (
        "ScriptRunContext.page_script_hash is gone (streamlit_internals.fragment_page)"
    )


def test_hook_page_hash_names_a_page_as_the_browser_does():
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from ffn_ui import streamlit_internals as internals

        page = st.Page(lambda: None, title="A page", url_path="a_page")
        st.session_state["hash"] = internals.page_hash(page)

    at = AppTest.from_function(script, default_timeout=30).run()
    assert at.session_state["hash"], f"st.Page.{internals.PAGE_HASH} is gone (page_hash)"


def test_hook_kept_by_widgets_and_forget_seed_in_a_run():
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from ffn_ui import streamlit_internals as internals

        st.slider("d", 0, 10, 3, key="d", bind="query-params")
        st.session_state["kept"] = internals.kept_by_widgets()
        internals.forget_seed("d")

    at = AppTest.from_function(script, default_timeout=30)
    at.query_params["d"] = "7"
    at.run()
    at.run()  # the second run: the slider's value is kept under it
    assert at.session_state["kept"] is not None, f"SessionState.{internals.OLD_STATE} is gone"
    # a value the script wrote under its own key is kept so; the slider's, under its widget
    assert "kept" in at.session_state["kept"] and "d" not in at.session_state["kept"]
    assert "d" not in at.query_params  # dropped, as Streamlit drops an invalid value


def test_hook_forget_seed_s_parts_are_there():
    from streamlit.runtime.state.query_params import QueryParams

    params = QueryParams()
    assert isinstance(getattr(params, internals.SEEDS, None), dict), (
        f"QueryParams.{internals.SEEDS} is gone (streamlit_internals.forget_seed)"
    )
    assert callable(getattr(params, internals.REMOVE, None)), f"QueryParams.{internals.REMOVE}"


def test_hook_session_files_reads_an_uploaders_files_oldest_first():
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.uploaded_file_manager import UploadedFileRec

    manager = MemoryUploadedFileManager("/upload")
    for file_id in ("a", "b", "c"):
        manager.add_file("s1", UploadedFileRec(file_id, f"{file_id}.npz", "x", b"1"))
    assert internals.session_files(manager, "s1") == ["a", "b", "c"], (
        "UploadedFileManager.file_storage or _lock moved (streamlit_internals.session_files)"
    )
    assert internals.session_files(object(), "s1") is None

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

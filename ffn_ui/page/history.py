"""The browser's Back and Forward buttons, made to keep a page's settings.

Streamlit's browser side pushes a history entry each time the address changes, and
when the browser goes Back or Forward, Streamlit restores every control bound to the
address from that entry alone: a control the entry does not name goes back to its
default. A page switch writes passing addresses too: the server first drops the
parameters bound to the page being left, so an entry with an empty address is pushed
before the new page's. Back to it showed Neurons after Traps at its defaults, the shared
model's d_ff and the page's own view lost.

`back_keeps_settings` treats Back and Forward as a click on the page in the menu: what
the entry's address still names wins, as it does for a link, and every other control
keeps the session's value.
"""

from __future__ import annotations

from ffn_ui.streamlit_internals import history_navigation


def back_keeps_settings() -> None:
    """Called before any control is drawn; a no-op outside Back and Forward."""
    history_navigation(forget=True)

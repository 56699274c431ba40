"""What one server process makes once and keeps for every session: the class rooms, the
real models, the process's own settings.

Not in `st.cache_resource`: any visitor's browser can ask Streamlit to clear every cache
(its `clear_cache` message, which the developer menu sends), and these are what other
visitors rely on: a class whose room vanished ends for everyone in it, and a model
dropped costs the next visitor seconds to load again. The app also refuses that message
(ffn_ui/streamlit_internals.py); this holds even where that refusal could not be set up.

    @once_per_process(spinner="Loading the model …")
    def model() -> Model: ...

The first caller makes the value, behind a lock (a second caller waits for that one
make, never starts another); every later caller gets the same object, so it must be
read-only or guard itself. A make that raises keeps nothing, and the next caller tries
again.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

T = TypeVar("T")


class Kept(Generic[T]):
    """A value made once per process by `make`, on first use."""

    def __init__(self, make: Callable[[], T], spinner: str | None):
        self.make, self.spinner = make, spinner
        self.lock = threading.Lock()
        self.held: list[T] = []  # empty until made: the value may itself be None
        functools.update_wrapper(self, make)

    def __call__(self) -> T:
        if self.held:
            return self.held[0]
        with self.lock:
            if not self.held:
                self.held.append(self.made())
        return self.held[0]

    def made(self) -> T:
        if self.spinner and get_script_run_ctx() is not None:  # a page waits: it says why
            with st.spinner(self.spinner):
                return self.make()
        return self.make()  # a background thread (ffn_ui/models/preload.py)

    def ready(self) -> bool:
        """Whether the value has been made in this process."""
        return bool(self.held)

    def forget(self) -> None:
        """Tests only: make the value again on next use."""
        with self.lock:
            self.held.clear()


def once_per_process(spinner: str | None = None) -> Callable[[Callable[[], T]], Kept[T]]:
    """Decorate a function of no arguments whose value one process keeps for everyone."""
    return lambda make: Kept(make, spinner)

"""What one server process sets for itself, once, and does now and then.

Many sessions share one process on two cores, and anyone may send it the largest sizes:

- Every page runs its products on one BLAS thread. OpenBLAS's extra thread spins for a
  while after each parallel product, taking a core from the next session's rerun without
  making this one faster (benchmarks/RESULTS.md, Real model).
- Freed memory goes back to the system. glibc keeps freed blocks of a few MB in its heap
  after a big array is released, so a server that once drew large weights kept that memory
  even after the cache let them go (benchmarks/RESULTS.md, Memory). `malloc_trim` hands the
  free pages back; it runs at most every few seconds, so a rerun almost never pays for it.
- A session keeps at most SESSION_UPLOADS uploaded files. Streamlit keeps every file sent
  to a session's upload address until the browser asks to delete it, so a visitor who
  replays the upload request with new file ids could pin 8 MB a request (30 took 228 MB).
  The app reads an upload once, in the uploader's callback, so the oldest files go.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform
import time

from streamlit import runtime
from threadpoolctl import threadpool_limits

from ffn_ui.models.preload import preload
from ffn_ui.process_wide import once_per_process
from ffn_ui.streamlit_internals import refuse_clear_cache, session_files

SESSION_UPLOADS = 2  # the uploader's file, and one being replaced
TRIM_EVERY = 5.0  # seconds between two hand-backs of freed memory
_last_trim = 0.0


@once_per_process()
def configure_process() -> None:
    """Once per process: products on one BLAS thread, no visitor clearing every cache."""
    threadpool_limits(limits=1, user_api="blas")
    refuse_clear_cache()
    if runtime.exists():
        bound_uploads(runtime.get_instance().uploaded_file_mgr)
    preload()  # the real models, ahead of need, when FFN_PRELOAD_MODELS=1


def bound_uploads(manager) -> None:
    """Make `manager` (Streamlit's store of uploaded files) keep only each session's
    SESSION_UPLOADS newest files: after each new file the oldest beyond that are removed."""
    if session_files(manager, "") is None:  # another kind of store: left as it is
        return
    add_file = manager.add_file

    def add_and_bound(session_id: str, file) -> None:
        manager.remove_file(session_id, file.file_id)  # a file sent again counts as new
        add_file(session_id, file)
        for file_id in (session_files(manager, session_id) or [])[:-SESSION_UPLOADS]:
            manager.remove_file(session_id, file_id)

    manager.add_file = add_and_bound


@once_per_process()
def c_library():
    """glibc, or None elsewhere (macOS, musl): there the hand-back is skipped."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    return ctypes.CDLL(ctypes.util.find_library("c"))


def hand_back_freed_memory() -> None:
    """Return the heap's free pages to the system, unless that was done a moment ago."""
    global _last_trim
    libc = c_library()
    if libc is None or time.monotonic() - _last_trim < TRIM_EVERY:
        return
    _last_trim = time.monotonic()
    libc.malloc_trim(0)

"""Arrays a learner edits in tables, kept in the session and carried in the URL.

The edited arrays live in st.session_state under `store_key`, so they survive page
switches, and in the URL under `url_key` (exact decimals, see ffn_core.weights_io), so a
copied link reproduces them. A first visit with the URL value and nothing in the session
restores them from the link.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core.typed_numbers import MAX_MAGNITUDE, decode_arrays, encode_arrays

Arrays = dict[str, np.ndarray]


def fits(arrays: Arrays | None, shapes: dict[str, tuple[int, ...]]) -> bool:
    """Whether `arrays` hold exactly these names, each of its shape."""
    return (
        arrays is not None
        and set(arrays) == set(shapes)
        and all(arrays[n].shape == s for n, s in shapes.items())
    )


def stored_arrays(
    store_key: str,
    url_key: str,
    shapes: dict[str, tuple[int, ...]],
    make_base: Callable[[], Arrays],
) -> Arrays:
    """The session's arrays if they fit the shapes; else the link's; else a fresh base."""
    state = st.session_state
    arrays = state.get(store_key)
    if fits(arrays, shapes):
        return arrays
    raw = st.query_params.get(url_key)
    if arrays is None and raw is not None:  # a first visit through a shared link
        try:
            decoded = decode_arrays(raw, list(shapes.values()))
            arrays = dict(zip(shapes, decoded, strict=True))
        except ValueError as err:
            st.warning(f"The link's {url_key}= values do not fit the current sizes ({err}).")
            arrays = make_base()
    else:
        if arrays is not None:
            st.info(f"The sizes changed, so the edited {'/'.join(shapes)} start again.")
        arrays = make_base()
    replace_arrays(store_key, arrays)
    return arrays


def replace_arrays(store_key: str, arrays: Arrays) -> None:
    """Store new arrays and retire the tables showing the old ones."""
    state = st.session_state
    state[store_key] = arrays
    state[f"{store_key}_version"] = state.get(f"{store_key}_version", 0) + 1


def edit_table(
    arr: np.ndarray, rows: list[str], cols: list[str], key: str, caption: str
) -> np.ndarray:
    """One array in a data editor. A cell that is not a finite number (blank, text, NaN,
    inf) keeps its previous value, with a note."""
    before = np.atleast_2d(arr)
    frame = pd.DataFrame(before, index=rows, columns=cols)
    st.caption(caption)
    edited = st.data_editor(frame, key=key, width="content")
    values = edited.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(values) <= MAX_MAGNITUDE)  # NaN and infinities included
    if bad.any():
        name = caption.split(" ")[0]
        st.warning(
            f"{name}: {int(bad.sum())} cell(s) were not a number within ±{MAX_MAGNITUDE:,.0f} "
            "(blank, text, NaN, infinity or too large) and keep their previous value."
        )
        values = np.where(bad, before, values)
    return values.reshape(arr.shape)


def commit_edits(store_key: str, url_key: str, arrays: Arrays, edited: Arrays) -> None:
    """Keep edits in the session and the URL; a changed value restarts the run once."""
    st.query_params[url_key] = encode_arrays(list(edited.values()))
    if any(not np.array_equal(arrays[n], edited[n]) for n in arrays):
        replace_arrays(store_key, edited)
        st.rerun()

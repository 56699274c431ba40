"""Touch the plane: drag the token, or a key's tip, on a Plotly chart of the page's own.

    show(half_planes(...), presenter, key="plane")
    drag_plane("plane", keys, on_token=..., on_key=...)   # a line of text, and the handles

Plotly in Streamlit selects points but does not drag them, so this small component (a
custom component v2: inline JavaScript, no build step) listens to the pointer over the
chart named `chart`: a press near a key's tip grabs that key, anywhere else grabs the
token. While the pointer moves, a ghost marks where it would land; on release the value
goes to Python as the component's `moved` trigger (one run a drag: triggers sent while a
run is under way can be lost),
snapped to the sliders' steps, and the page's callback writes it into the sliders'
session values: the sliders stay the keyboard's (and a screen reader's) way to the same
change, and the address and a class follow as they follow a slider.

The chart stays the figure: its words, its class view and its tests are the same
whether a drag or a slider moved the token. Pixels become data coordinates through the
axes Plotly lays out (`_fullLayout.xaxis.p2d`), which Plotly keeps for its own events.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import streamlit as st

HINT = "Drag the token ✕ anywhere on the plane, or a key's round tip to turn it."

JS = """
export default function(component) {
  const { data, setTriggerValue, parentElement } = component;
  const selector = `.st-key-${data.chart} .js-plotly-plot`;
  let grabbed = null, gd = null, ghost = null;

  const inChart = (ev) => ev.target.closest && ev.target.closest(`.st-key-${data.chart}`);
  const axes = () => [gd._fullLayout.xaxis, gd._fullLayout.yaxis];
  const toData = (ev) => {
    const [xa, ya] = axes(), box = gd.getBoundingClientRect();
    return [xa.p2d(ev.clientX - box.left - xa._offset), ya.p2d(ev.clientY - box.top - ya._offset)];
  };
  const toPixels = ([a, b]) => {
    const [xa, ya] = axes();
    return [xa._offset + xa.d2p(a), ya._offset + ya.d2p(b)];
  };
  const snap = (v, step) => Math.round(v / step) * step;
  const clamp = (v) => Math.max(-data.limit, Math.min(data.limit, v));

  function value(ev) {
    const [a, b] = toData(ev);
    const at = (v) => snap(clamp(v), data.step);
    if (grabbed === "token") return { token: [at(a), at(b)] };
    const degrees = Math.atan2(b, a) * 180 / Math.PI;
    return { key: grabbed, angle: snap(degrees, data.angle_step) };
  }
  function mark(ev) {
    const box = gd.getBoundingClientRect(), host = gd.parentElement;
    if (!ghost) {
      ghost = document.createElement("div");
      ghost.className = "ffn-drag-ghost";
      ghost.setAttribute("aria-hidden", "true");
      host.style.position = "relative";
      host.appendChild(ghost);
    }
    ghost.style.left = `${ev.clientX - host.getBoundingClientRect().left - 9}px`;
    ghost.style.top = `${ev.clientY - host.getBoundingClientRect().top - 9}px`;
  }
  function send(ev, final) {
    mark(ev);
    if (final) setTriggerValue("moved", value(ev));  // one run a drag: none is lost
  }
  function down(ev) {
    if (!inChart(ev) || ev.button !== 0) return;
    gd = document.querySelector(selector);
    if (!gd || !gd._fullLayout || !gd._fullLayout.xaxis) return;
    const box = gd.getBoundingClientRect();
    const away = (point) => {
      const [px, py] = toPixels(point);
      return Math.hypot(ev.clientX - box.left - px, ev.clientY - box.top - py);
    };
    // the nearest handle within reach, the token first on a tie; elsewhere, the token jumps
    grabbed = "token";
    let nearest = Math.min(away(data.token), 18);
    data.keys.forEach((key, j) => {
      if (away(key) < nearest) { nearest = away(key); grabbed = j; }
    });
    ev.preventDefault();
    ev.stopPropagation();
    send(ev, false);
  }
  function move(ev) { if (grabbed !== null) { ev.preventDefault(); send(ev, false); } }
  function up(ev) {
    if (grabbed === null) return;
    send(ev, true);
    grabbed = null;
    if (ghost) { ghost.remove(); ghost = null; }
  }
  document.addEventListener("pointerdown", down, true);
  window.addEventListener("pointermove", move, true);
  window.addEventListener("pointerup", up, true);
  return () => {
    document.removeEventListener("pointerdown", down, true);
    window.removeEventListener("pointermove", move, true);
    window.removeEventListener("pointerup", up, true);
    if (ghost) ghost.remove();
  };
}
"""
CSS = """
.ffn-drag-hint { font-size: 0.875rem; color: inherit; margin: 0; }
"""
# The ghost lives in the app's page, beside the chart, so its style is the page's.
GHOST_CSS = """
.ffn-drag-ghost { position: absolute; width: 18px; height: 18px; border-radius: 50%;
  border: 3px solid #000000; pointer-events: none; z-index: 10; }
"""

plane_component = st.components.v2.component(
    "ffn_drag_plane",
    html=f'<p class="ffn-drag-hint">{HINT}</p>',
    css=CSS,
    js=JS,
    isolate_styles=False,
)


def drag_plane(
    chart: str,
    keys: np.ndarray,
    token: np.ndarray,
    limit: float,
    step: float,
    angle_step: float,
    on_moved: Callable[[], None],
    key: str,
) -> None:
    """The drag handles over the chart with Streamlit key `chart`, and one line saying how
    to use them. keys: (K, 2), each key's tip, and token (2,), in data coordinates. A press
    grabs the nearest of them within reach (the token on a tie). `on_moved` reads
    st.session_state[key]["moved"]: {"token": [x1, x2]} or {"key": j, "angle": degrees}."""
    grabbable = f".st-key-{chart} .js-plotly-plot {{ touch-action: none; cursor: crosshair; }}"
    st.html(f"<style>{GHOST_CSS}{grabbable}</style>")
    plane_component(
        data={
            "chart": chart,
            "keys": np.asarray(keys, dtype=float).tolist(),
            "token": np.asarray(token, dtype=float).tolist(),
            "limit": limit,
            "step": step,
            "angle_step": angle_step,
        },
        key=key,
        on_moved_change=on_moved,
    )

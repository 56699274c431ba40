"""FFN Explorer: run with `streamlit run app.py`.

The pages, in the learning path's order and tiers, each at its pinned address
(ffn_ui/page/path.py). Streamlit draws them as the sidebar's menu, once per run, and runs the
page a link or a click asks for, unless a student follows a class: then the teacher's
page (ffn_ui/classroom/follow.py).
"""

import streamlit as st

from ffn_ui.classroom.follow import catch_up
from ffn_ui.controls.url import keep_link_values
from ffn_ui.page.history import back_keeps_settings
from ffn_ui.page.path import HOME, TIERS

pages = {
    tier: [
        st.Page(step.page, title=step.label, url_path=step.url or None, default=step.page == HOME)
        for step in steps
    ]
    for tier, steps in TIERS.items()
}
page = st.navigation(pages, expanded=True)
keep_link_values()  # a setting a link made stays when the learner moves to another page
back_keeps_settings()  # Back and Forward keep the page's settings, as the menu does
catch_up(page)  # a student following a class takes the teacher's page and settings
page.run()

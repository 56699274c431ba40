"""FFN Explorer: run with `streamlit run app.py`.

The pages, in the learning path's order, each marked with its tier and at its pinned
address (ffn_ui/page/path.py). Streamlit draws them as the sidebar's menu, once per run,
and runs the page a link or a click asks for, unless a student follows a class: then
the teacher's page and settings (ffn_ui/classroom/follow.py), drawn as the class view
when the teacher's page has figures to show (ffn_ui/classroom/class_view.py). A teacher's
page records what it draws, for that view (ffn_ui/classroom/recording.py).
"""

import streamlit as st

from ffn_ui.classroom.class_view import class_content, class_view
from ffn_ui.classroom.follow import catch_up, followed
from ffn_ui.classroom.teaching import recorded
from ffn_ui.controls.url import keep_link_values
from ffn_ui.page.history import back_keeps_settings
from ffn_ui.page.path import HOME, TIER_ICONS, TIERS

pages = [  # one list, in the path's order: a valid list for a screen reader (path.py)
    st.Page(
        step.page,
        title=step.label,
        icon=TIER_ICONS[tier],
        url_path=step.url or None,
        default=step.page == HOME,
    )
    for tier, steps in TIERS.items()
    for step in steps
]
following = followed()  # the class this session follows, and what its room shows
content = class_content(following)  # what the class view draws, or None: the whole page
# A student in the class view cannot use the menu: the teacher chooses the page.
page = st.navigation(pages, expanded=True, position="hidden" if content else "sidebar")
keep_link_values()  # a setting a link made stays when the learner moves to another page
back_keeps_settings()  # Back and Forward keep the page's settings, as the menu does
catch_up(page, following)  # a student following a class takes the teacher's page and settings
if content:
    class_view(page.title, content)
else:
    with recorded():  # a teacher's page: what it draws, for the class view
        page.run()

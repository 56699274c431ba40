"""Classroom mode: a teacher's page leads, students' pages follow and vote.

follow.py        the sidebar's class controls, a follower's catching up, the poll
votes.py         a page's question asked of the whole class, and its reveal
voter.py         a student's anonymous id: one per browser
store.py         a room's rules: codes, caps, errors, what a page reads back
memory_store.py  rooms in this server process (Streamlit Community Cloud)
redis_store.py   rooms in Redis, for several server processes (deploy/)
"""

"""A class on a real server, through Streamlit's own protocol: the teacher changes page the
ways a person does, presses every button and answers every question on every page, and
each following student's page shows the teacher's page with no exception.

A protocol session sends what a browser sends (harness/class_protocol.py), so what only a
real session does happens here: a control bound to the URL raises when a page switch sets
it through the address, which AppTest never shows.
"""

from __future__ import annotations

import json
import random
import time

import pytest

from ffn_ui.classroom.room import VIEWED
from ffn_ui.classroom.store import VOTES_PER_MINUTE
from harness.class_protocol import Participant, bar_counts, xsrf_cookie
from harness.protocol import Control, Seen
from harness.protocol_walk import ProtocolWalker
from harness.server import AppServer

# How long a test waits for a follower before it calls the follow lost: a liveness bound,
# not a speed (benchmarks/class_costs.py and load_classroom.py measure how fast it follows).
FOLLOW_SECONDS = 15.0
NOT_SURE = "not sure yet"
PATH = ["Key_value_memory", "Neurons", "Collapse", "Position-wise", "Traps", "Backprop", "Build_it",
        "Activations", "Scale_and_cost", "Mixture_of_experts", "Superposition", "Memory_lab",
        "Real_model", "Language_model", "Glossary"]  # fmt: skip
# Buttons the walk leaves alone: they start, end or reveal the class, or change the whole
# model to GPT-2's size for every later page (the walk presses the other presets).
NOT_PRESSED = ("Start a class", "End the class", "Reveal to the class", "GPT-2")


@pytest.fixture(scope="session")
def app():
    """A server of the class tests' own, one per worker: they start many classes, and a
    server keeps only a few live from one address (store.ROOMS_PER_ADDRESS)."""
    server = AppServer("class-protocol")
    server.start()
    yield server
    server.stop()


class Lesson:
    """A teacher and their students, each a protocol session, and the browser's timers."""

    def __init__(self, port: int, students: int = 2):
        self.teacher = Participant(port)
        self.code = self.teacher.start_class()
        self.students = [Participant(port, f"room={self.code}") for _ in range(students)]
        self.trail: list[str] = []

    def everyone(self) -> list[Participant]:
        return [self.teacher, *self.students]

    def check(self, runs, who: str) -> None:
        for seen in runs:
            assert not seen.exceptions, f"{who}, after {self.trail}: {seen.exceptions}"

    def tick(self) -> None:
        """The fragments that are due, for everyone, as their browsers' timers run them."""
        wake = min(p.next_due() for p in self.everyone())
        time.sleep(max(0.0, wake - time.monotonic()))
        self.check(self.teacher.tick(), "the teacher")
        for k, student in enumerate(self.students):
            self.check(student.tick(), f"student {k}")

    def act(self, what: str, action) -> float:
        """Do `action` on the teacher's page, then run the timers until every student who
        follows shows the teacher's page; the seconds that took."""
        self.trail.append(what)
        seen = action()
        self.check([seen], "the teacher")
        return self.caught_up()

    def until(self, condition, what: str, within: float = FOLLOW_SECONDS) -> None:
        """Run the timers until `condition()` holds; fail if it does not within `within`."""
        began = time.monotonic()
        while not condition():
            said = what() if callable(what) else what
            assert time.monotonic() - began < within, f"after {self.trail[-3:]}: {said}"
            self.tick()

    def caught_up(self, within: float = FOLLOW_SECONDS, values: bool = True) -> float:
        """Run the timers until every student who follows shows the teacher's page (with
        its controls at the teacher's values, unless `values` is False: a follower who
        changed a control keeps it until the teacher changes something)."""
        began = time.monotonic()
        wanted = self.teacher.shown.title
        while time.monotonic() - began < within:
            followers = [s for s in self.students if following(s)]
            if all(
                s.shown.title == wanted
                and (not values or same_controls(s, self.teacher))
                and (not in_class_view(s) or same_view(s, self.teacher))
                for s in followers
            ):
                return time.monotonic() - began
            self.tick()
        shown = [(s.shown.title, differences(s, self.teacher)) for s in self.students]
        raise AssertionError(f"after {self.trail[-8:]}: students show {shown}, not {wanted!r}")


OWN = ("room", "follow", "presenter", "contrast")  # a student's own, not followed


def differences(student: Participant, teacher: Participant) -> dict[str, tuple[str, str]]:
    """The controls the student's page shows at another value than the teacher's, their
    own display and guesses aside: key -> (theirs, the teacher's)."""
    theirs = {c.key: student.values[c.key] for c in student.shown.controls if c.key}
    mine = {c.key: teacher.values[c.key] for c in teacher.shown.controls if c.key}
    followed = (
        k
        for k in theirs.keys() & mine.keys()
        if k not in OWN and "guess" not in k and not k.startswith("typed_")  # Build it's lines
    )
    return {key: (theirs[key], mine[key]) for key in followed if theirs[key] != mine[key]}


def following(student: Participant) -> bool:
    """Whether the student's "Follow the teacher" is ticked (and drawn: in a class)."""
    return "follow" in student.shown.widgets and student.values.get("follow") == "True"


def same_controls(student: Participant, teacher: Participant) -> bool:
    return not differences(student, teacher)


def in_class_view(student: Participant) -> bool:
    """Whether the student's page is the class view: the teacher's figures and questions,
    not the page's own run (ffn_ui/classroom/class_view.py)."""
    return any(VIEWED in n for n in student.shown.notes)


def same_view(student: Participant, teacher: Participant) -> bool:
    """Whether the student's page draws the teacher's figures (the same traces, in order)
    and asks the teacher's questions."""

    def drawn(seen: Seen) -> tuple[list, list]:
        asked = [(c.label, c.options) for c in questions(seen)]
        traces = [
            [{k: t.get(k) for k in ("type", "name", "x", "y", "z")} for t in json.loads(c)["data"]]
            for c in seen.charts
        ]  # their values: each reader's high contrast draws lines thicker
        return traces, asked

    return drawn(student.shown) == drawn(teacher.shown)


@pytest.mark.long
def test_students_follow_the_teacher_across_pages_by_the_menu_and_by_next_links(app):
    lesson = Lesson(app.port)
    typist = Participant(app.port)  # a third student types the code as it is read out
    (box,) = [c for c in typist.shown.controls if c.key == "room"]
    typist.use(box, " ".join(lesson.code.upper().split("-")))
    lesson.students.append(typist)
    lesson.caught_up()
    took = [lesson.act(f"menu: {path}", lambda p=path: lesson.teacher.go(p)) for path in PATH]
    lesson.act("menu: Home", lambda: lesson.teacher.go(""))
    lesson.act("Home's path link", lambda: lesson.teacher.follow("Key–value memory:"))
    while not lesson.teacher.shown.title.startswith("Language model"):
        if not any(label.startswith("Next:") for label in lesson.teacher.shown.links):
            # a page that stops until its question is answered: in a class, until revealed
            lesson.act("reveal", lambda: lesson.teacher.press("Reveal to the class"))
        took.append(lesson.act("Next link", lambda: lesson.teacher.follow("Next:")))
    assert len(took) >= len(PATH), took  # every switch was followed (caught_up fails if not)


def test_a_poll_the_browser_sent_before_it_heard_of_the_switch_leaves_the_page_drawn(app):
    """The student's browser polls every second; a poll sent just before the server
    switched its page names the page it left. The page the switch drew stays drawn."""
    lesson = Lesson(app.port, students=1)
    (student,) = lesson.students
    left, address = student.page_hash, student.query
    lesson.act("menu: Neurons", lambda: lesson.teacher.go("Neurons"))
    assert student.shown.title == lesson.teacher.shown.title
    seen = student.poll_from(left, address)
    assert not seen.fragment_run, "the poll redrew only itself, over a wiped page"
    assert seen.title == lesson.teacher.shown.title
    assert not seen.exceptions and f"room={lesson.code}" in (seen.address or "")
    assert same_controls(student, lesson.teacher)


def questions(seen) -> list[Control]:
    return [c for c in seen.controls if c.kind == "radio" and c.key.startswith("guess")]


def buttons(seen) -> list[str]:
    return [
        c.label
        for c in seen.controls
        if c.kind == "button" and not c.sidebar and not c.disabled and c.label not in NOT_PRESSED
    ]


@pytest.mark.long
def test_every_page_works_while_a_class_runs_every_button_and_every_question(app, smollm_installed):
    """The teacher visits every page, presses each of its buttons and asks each of its
    questions; the students answer, the teacher's chart counts them exactly, and after
    the reveal every page shows the answer."""
    lesson = Lesson(app.port)
    for path in ["", *PATH]:
        lesson.act(f"menu: {path or 'Home'}", lambda p=path: lesson.teacher.go(p))
        for label in buttons(lesson.teacher.shown):
            if label in buttons(lesson.teacher.shown):  # an earlier press may remove it
                lesson.act(f"{path}: {label}", lambda b=label: lesson.teacher.press(b))
        for question in questions(lesson.teacher.shown):
            vote_and_reveal(lesson, question)


def vote_and_reveal(lesson: Lesson, question: Control) -> None:
    """Each student answers `question`; the teacher's chart counts exactly those answers,
    no student sees a verdict before the reveal, and every page shows the answer after."""
    answers = [o for o in question.options if o != NOT_SURE]
    said = {}
    for k, student in enumerate(lesson.students):
        (theirs,) = [c for c in questions(student.shown) if c.key == question.key]
        said[k] = answers[k % len(answers)]
        seen = student.use(theirs, said[k])
        lesson.check([seen], f"student {k}")
        assert question.key in seen.notes_after, (question.key, seen.fragment_run, seen.notes)
        said_now = seen.notes_after[question.key]
        assert any("Your answer is in" in n for n in said_now), said_now
        assert not any(n.startswith(("Right", "Not this time")) for n in said_now)
    (reveal,) = [
        c for c in lesson.teacher.shown.controls if c.key.startswith(f"reveal_{question.key}:")
    ]
    count = f"{len(said)} of {len(lesson.students)} students answered, 0 not yet"
    lesson.until(  # the teacher's line redraws every second
        lambda: count in answers_line(lesson.teacher, reveal),
        f"the teacher's line says {count!r} for {question.key}",
    )
    lesson.act(f"reveal {question.key}", lambda: lesson.teacher.use(reveal))
    said_now = lesson.teacher.notes_after(question.key)
    assert any(n.startswith("Revealed to the class") for n in said_now), said_now
    expected = {a: list(said.values()).count(a) for a in answers}
    assert class_counts(lesson.teacher, question.key) == expected, question.key
    for k, student in enumerate(lesson.students):
        lesson.until(
            lambda s=student: verdict(s, question.key).startswith(("Right", "Not this time")),
            f"student {k} sees the answer to {question.key}",
        )
        assert f"you said {said[k]}" in verdict(student, question.key)


def answers_line(teacher: Participant, reveal: Control) -> str:
    """The teacher's live line about a question's answers, from the fragment that draws it
    with the question's "Reveal to the class"."""
    seen = teacher.fragments.get(reveal.fragment, teacher.shown)
    return " ".join(t for t in seen.texts if t.startswith("**The class's answers:**"))


def verdict(student: Participant, key: str) -> str:
    """What the student's page says after the question `key`."""
    return " ".join(student.notes_after(key))


def class_counts(teacher: Participant, key: str) -> dict[str, int]:
    """The counts of the teacher's chart of the class's answers to `key`, once revealed."""
    (chart,) = [k for k in teacher.shown.keyed_charts if k.startswith(f"tally_{key}:")]
    counts = bar_counts(teacher.chart(chart))
    return {answer.removesuffix(" (the answer)"): n for answer, n in counts.items()}


# --- a seeded random walk of a class ---------------------------------------------------

# What the walk leaves to its own steps: starting, ending and revealing, and the teacher's
# class code (typing another would leave the class); and GPT-2's size, slow on every page.
CLASS_BUTTONS = ("Start a class", "End the class", "Reveal to the class", "GPT-2")
TEACHERS_OWN = (*CLASS_BUTTONS, "class code")
WALK_STEPS = 60  # random actions of the class walk
# What a hostile visitor sends a control, each of the type its widget takes (a value of
# another type fails inside Streamlit before any page code runs, on the sender's page
# alone: `test_a_value_of_the_wrong_type_fails_only_the_page_that_sent_it`).
WILD_NUMBERS = (1e12, -1e12, 1e-300)
WILD_TEXTS = ("<script>alert(1)</script>", "../../etc/passwd", "", "x" * 100_000, "ffn:room:*")


def wild_value(control: Control, rng: random.Random) -> dict[str, object] | None:
    """A value far past anything the page offers, in the protocol field its widget uses;
    None for a control that takes no such value (a button, a box to tick)."""
    numbers = WILD_NUMBERS if control.integer else (*WILD_NUMBERS, float("nan"))
    if control.kind == "slider" and not control.options:
        return {"double_array_value": [rng.choice(numbers)]}
    if control.kind == "number_input":
        return {"double_value": rng.choice(numbers)}
    if control.kind in ("radio", "selectbox", "text_input", "text_area"):
        return {"string_value": rng.choice(WILD_TEXTS)}
    return None


def hostile_act(hostile: Participant, lesson: Lesson, rng: random.Random) -> tuple[str, Seen]:
    """One thing a hostile visitor in the class does; what it was and the run it caused."""
    act = rng.choice(["replay", "flood", "wild value", "hostile link"])
    if act == "replay" and lesson.teacher.sent:  # the teacher's last message, from their page
        seen = hostile.replay(lesson.teacher.sent[-1]) or hostile.shown
        return "replays the teacher's last message", seen
    if act == "flood" and questions(hostile.shown):
        question = rng.choice(questions(hostile.shown))
        seen = hostile.shown
        for k in range(VOTES_PER_MINUTE + 5):  # past its rate
            seen = hostile.use(question, question.options[k % len(question.options)])
        return f"floods {question.key} with votes", seen
    wild = [(c, v) for c in hostile.shown.controls if (v := wild_value(c, rng)) is not None]
    if act == "wild value" and wild:
        control, value = rng.choice(wild)
        seen = hostile.change((control.id, control.fragment), **value)
        return f"sends {control.key or control.label!r} {str(value)[:60]}", seen
    links = ["d_ff=-5&seed=nan", "d_model=99999&act=%3Cb%3E", "w1=%5B%5Bnan%5D%5D",
             "lm_text=" + "x" * 5000, f"room={lesson.code}&follow=maybe"]  # fmt: skip
    query = rng.choice(links)
    hostile.query = f"room={lesson.code}&{query}"
    return f"opens its page with ?{query[:40]}", hostile.send(hostile.message())


@pytest.mark.long
def test_a_random_class_walk_never_shows_an_exception(app, walk_seed):
    """A teacher and students in a class, each doing random things: the teacher changes
    controls and pages, reveals, ends the class and starts another; students join by link
    or by typing the code, change their own controls, vote, unfollow and follow again.
    A hostile visitor sits in the class: they replay the teacher's messages, flood votes,
    send controls values no browser sends and open hostile links. No page ever shows an
    exception, theirs included, and every follower shows the teacher's page."""
    rng = random.Random(f"{walk_seed}:class")
    lesson = Lesson(app.port)
    hostile = Participant(app.port, f"room={lesson.code}")
    walkers = [ProtocolWalker(lesson.teacher, rng, TEACHERS_OWN)]
    walkers += [ProtocolWalker(p, rng, CLASS_BUTTONS) for p in lesson.students]
    trail = lesson.trail

    def everyone_checked(what: str) -> None:
        trail.append(what)
        lesson.caught_up(values=False)

    actions = {
        "a teacher's control": 6,
        "a teacher's page": 2,
        "a student's control": 2,
        "a student's vote": 3,
        "a reveal": 1,
        "a student unfollows or follows": 1,
        "a student wanders off alone": 1,
        "a student reloads their page": 0.5,
        "a student joins": 1,
        "the teacher ends the class and starts another": 0.5,
        "a hostile visitor acts": 1.5,
    }
    for _ in range(WALK_STEPS):
        (action,) = rng.choices(list(actions), weights=list(actions.values()))
        student = rng.choice(lesson.students)
        if action == "a teacher's control":
            seen = walkers[0].step()
            trail.append(walkers[0].trail[-1])
            lesson.check([seen], "the teacher")
        elif action == "a teacher's page":
            path = rng.choice(["", *PATH])
            trail.append(f"teacher opens {path or 'Home'}")
            lesson.check([lesson.teacher.go(path)], "the teacher")
        elif action == "a student's control":
            walker = next(w for w in walkers if w.who is student)
            seen = walker.step()
            trail.append(f"student: {walker.trail[-1]}")
            lesson.check([seen], "a student")
        elif action == "a student's vote" and questions(student.shown):
            question = rng.choice(questions(student.shown))
            answer = rng.choice(question.options)
            trail.append(f"student votes {answer!r} on {question.key}")
            lesson.check([student.use(question, answer)], "a student")
        elif action == "a reveal":
            reveals = [c for c in lesson.teacher.shown.controls if c.key.startswith("reveal_")]
            if reveals:
                trail.append("teacher reveals")
                lesson.check([lesson.teacher.use(rng.choice(reveals))], "the teacher")
        elif action == "a student unfollows or follows" and "follow" in student.shown.widgets:
            (toggle,) = [c for c in student.shown.controls if c.key == "follow"]
            ticked = student.values["follow"] != "True"
            trail.append(f"student sets follow to {ticked}")
            lesson.check([student.use(toggle, ticked)], "a student")
        elif action == "a student wanders off alone" and "follow" in student.shown.widgets:
            path = rng.choice(["", *PATH])
            trail.append(f"student unticks follow and opens {path or 'Home'}")
            if student.values["follow"] == "True":
                (toggle,) = [c for c in student.shown.controls if c.key == "follow"]
                lesson.check([student.use(toggle, False)], "a student")
            lesson.check([student.go(path)], "a student")
        elif action == "a student reloads their page":
            k = lesson.students.index(student)
            trail.append(f"student {k} reloads their page")
            pages = student.shown.pages.items()
            path = next((p for p, h in pages if h == student.page_hash), "")
            student.close()
            again = Participant(app.port, student.query, path, cookie=student.cookie)
            lesson.check([again.shown], "a reloaded student")
            lesson.students[k] = again
            walkers = [w for w in walkers if w.who is not student]
            walkers.append(ProtocolWalker(again, rng, CLASS_BUTTONS))
        elif action == "a student joins" and len(lesson.students) < 4:
            newcomer = join_by_typing(app.port, lesson.code, rng)
            lesson.students.append(newcomer)
            walkers.append(ProtocolWalker(newcomer, rng, CLASS_BUTTONS))
            trail.append("a student joins by typing the code")
        elif action == "a hostile visitor acts":
            what, seen = hostile_act(hostile, lesson, rng)
            trail.append(f"hostile visitor {what}")
            lesson.check([seen], "the hostile visitor")
        elif action == "the teacher ends the class and starts another":
            trail.append("teacher ends the class and starts another")
            lesson.check([lesson.teacher.press("End the class")], "the teacher")
            for k, s in enumerate(lesson.students):
                if "follow" not in s.shown.widgets:
                    continue  # they typed something else into the code box: in no class
                lesson.until(lambda s=s: any("has ended" in n for n in s.shown.notes),
                             lambda s=s, k=k: f"student {k} sees the class end, but shows "
                             f"{s.shown.title!r}, notes {s.shown.notes}, timers "
                             f"{s.shown.timers}")  # fmt: skip
            lesson.code = lesson.teacher.start_class()
            for s in lesson.students:
                (box,) = [c for c in s.shown.controls if c.key == "room"]
                lesson.check([s.use(box, lesson.code)], "a student")
            hostile = Participant(app.port, f"room={lesson.code}")  # they join the new class
        everyone_checked(f"after: {trail[-1]}")


def join_by_typing(port: int, code: str, rng: random.Random) -> Participant:
    """A student who opens the app and types the code in one of the ways people do."""
    student = Participant(port)
    typed = rng.choice([code, code.upper(), " ".join(code.split("-")), code.replace("-", "")])
    (box,) = [c for c in student.shown.controls if c.key == "room"]
    student.use(box, typed)
    return student


def test_a_value_of_the_wrong_type_fails_only_the_page_that_sent_it(app):
    """A text sent as a number box's value, which no browser sends, fails inside
    Streamlit before the page's code runs (the number box's own conversion). It shows on
    the sender's page alone: the teacher and the class go on, and a reload of the sender's
    page works."""
    lesson = Lesson(app.port, students=1)
    hostile = Participant(app.port, f"room={lesson.code}")
    hostile.use(hostile.control("follow"), False)  # the class view has no number box
    (d_ff,) = [c for c in hostile.shown.controls if c.key == "d_ff"]
    seen = hostile.change((d_ff.id, d_ff.fragment), string_value="../../etc/passwd")
    assert [e.split(":")[0] for e in seen.exceptions] == ["ValueError"]  # the type alone
    (box,) = [c for c in lesson.teacher.shown.controls if c.key == "d_ff"]
    lesson.act("the teacher sets d_ff to 24", lambda: lesson.teacher.use(box, 24))
    (student,) = lesson.students
    assert in_class_view(student) and same_view(student, lesson.teacher)
    again = Participant(app.port, f"room={lesson.code}")  # the sender reloads
    assert not again.shown.exceptions and same_view(again, lesson.teacher)
    again.use(again.control("follow"), False)  # the whole page, at the teacher's settings
    assert not again.shown.exceptions and again.values["d_ff"] == "24"


def test_two_tabs_of_one_browser_count_as_one_student(app):
    """Two sessions that carry the same browser's cookie (masked differently, as after a
    reload) are one voter: the second tab's answer replaces the first's. A session of
    another browser counts on its own."""
    lesson = Lesson(app.port, students=0)
    browser, other = b"\x01" * 16, b"\x02" * 16
    lesson.students = [
        Participant(app.port, f"room={lesson.code}", cookie=xsrf_cookie(browser, b"abcd")),
        Participant(app.port, f"room={lesson.code}", cookie=xsrf_cookie(browser, b"wxyz")),
        Participant(app.port, f"room={lesson.code}", cookie=xsrf_cookie(other, b"abcd")),
    ]
    (question,) = [c for c in questions(lesson.teacher.shown) if c.key == "guess_home"]
    answers = [o for o in question.options if o != NOT_SURE]
    for student, answer in zip(lesson.students, [answers[0], answers[1], answers[1]], strict=True):
        (theirs,) = [c for c in questions(student.shown) if c.key == question.key]
        lesson.check([student.use(theirs, answer)], "a student")
    (reveal,) = [
        c for c in lesson.teacher.shown.controls if c.key.startswith(f"reveal_{question.key}:")
    ]
    count = "2 of 2 students answered, 0 not yet"
    lesson.until(
        lambda: count in answers_line(lesson.teacher, reveal),
        f"the teacher's line says {count!r}",
    )
    lesson.act("reveal", lambda: lesson.teacher.use(reveal))
    assert class_counts(lesson.teacher, question.key) == {
        answers[0]: 0,
        answers[1]: 2,
        **{a: 0 for a in answers[2:]},
    }


def test_the_teacher_sees_how_many_students_have_each_line_of_build_it_right(app):
    """Build it in a class: each student's right line counts once on the teacher's chart,
    a line that goes wrong again is taken back, and no student sees another's lines."""
    lesson = Lesson(app.port)
    lesson.act("menu: Build_it", lambda: lesson.teacher.go("Build_it"))
    first, second = lesson.students
    lesson.check([first.set("typed_h_pre", "x @ W1 + b1")], "student 0")
    lesson.check([first.set("typed_dx", "dh_pre @ W1")], "student 0")  # wrong: not counted
    lesson.check([second.set("typed_h_pre", "x @ W1 + b1")], "student 1")
    lesson.check([second.set("typed_dx", "dh_pre @ W1.T")], "student 1")
    lesson.check([second.set("typed_W_eff", "W1 @ W2")], "student 1")  # the collapse's line

    def counts() -> dict[str, int]:
        try:
            return bar_counts(lesson.teacher.chart("build_class_progress"))
        except KeyError:
            return {}

    lesson.until(lambda: counts().get("h_pre") == 2 and counts().get("W_eff") == 1, counts)
    assert counts()["h"] == 0 and counts()["dx"] == 1 and counts()["L"] == 0
    lesson.check([second.set("typed_h_pre", "x @ W1")], "student 1")  # wrong again
    lesson.until(lambda: counts().get("h_pre") == 1, counts)
    assert first.values["typed_dx"] == "dh_pre @ W1"  # each keeps their own lines
    assert not lesson.teacher.values.get("typed_h_pre")


def test_an_answer_to_an_earlier_question_is_never_cast_as_a_vote(app):
    """A student answered Key–value memory's question; the teacher revealed it, went to
    Neurons, came back and picked another token: a new question, 0 of 1 answered. The
    student then only unticked Follow, and their old answer was cast: 1 of 1, and their
    page said "Your answer is in". A vote counts only when chosen for this question."""
    lesson = Lesson(app.port, students=0)
    teacher = lesson.teacher
    lesson.act("menu: Key_value_memory", lambda: teacher.go("Key_value_memory"))
    student = Participant(
        app.port, f"room={lesson.code}", cookie=xsrf_cookie(b"\x05" * 16, b"abcd")
    )
    lesson.students = [student]
    lesson.caught_up()
    (question,) = [c for c in questions(student.shown) if c.key == "guess_kv"]
    lesson.check([student.use(question, question.options[1])], "student")
    (reveal,) = [c for c in teacher.shown.controls if c.key.startswith("reveal_guess_kv")]
    lesson.until(lambda: "1 of 1 student answered" in answers_line(teacher, reveal), "voted")
    lesson.act("reveal", lambda: teacher.use(reveal))
    lesson.act("menu: Neurons", lambda: teacher.go("Neurons"))
    lesson.act("menu: Key_value_memory", lambda: teacher.go("Key_value_memory"))
    token = teacher.control("tok")
    lesson.act("token 3", lambda: teacher.use(token, token.options[2]))
    (reveal,) = [c for c in teacher.shown.controls if c.key.startswith("reveal_guess_kv")]
    lesson.until(lambda: "0 of 1 student answered" in answers_line(teacher, reveal), "asked")
    lesson.check([student.set("follow", False)], "student")  # the whole page, alone
    for _ in range(3):
        lesson.tick()
    assert "0 of 1 student answered" in answers_line(teacher, reveal)
    assert not any("Your answer is in" in note for note in student.notes)
    assert student.values["guess_kv"] == "not sure yet"


def test_one_tick_follows_the_teacher_again_from_another_page(app):
    """A student who unticked Follow, went to Collapse by the menu and ticked it again
    once needed a second tick: the class view drew a toggle of its own, which took the
    value the address still held (follow=false) and unticked itself."""
    lesson = Lesson(app.port, students=1)
    (student,) = lesson.students
    lesson.check([student.set("follow", False)], "student")
    lesson.check([student.go("Collapse")], "student")
    assert student.shown.title.startswith("Collapse")
    lesson.check([student.set("follow", True)], "student")  # one tick
    assert student.values["follow"] == "True" and "follow=false" not in student.query
    assert student.shown.title == lesson.teacher.shown.title  # the teacher's page
    assert any(VIEWED in note for note in student.notes)
    teacher = lesson.teacher
    runs = lambda: [teacher.shown, *teacher.fragments.values()]  # noqa: E731
    lesson.until(lambda: any("1 following" in t for r in runs() for t in r.texts), "counted")


def test_sessions_without_a_browser_s_cookie_count_as_one_student_per_address(app):
    """Every browser that loaded the app carries Streamlit's XSRF cookie; 20 sessions of a
    script without it, from one address, once filled Build it's chart as 20 students.
    They are one student now; a browser at that address still counts on its own."""
    lesson = Lesson(app.port, students=0)
    lesson.act("menu: Build_it", lambda: lesson.teacher.go("Build_it"))
    room = f"room={lesson.code}"
    script = [Participant(app.port, room, "Build_it", source="127.0.0.7") for _ in range(20)]
    browser = Participant(
        app.port, room, "Build_it", source="127.0.0.7", cookie=xsrf_cookie(b"\x03" * 16, b"abcd")
    )
    lesson.students = [*script, browser]
    for student in lesson.students:
        lesson.check([student.set("typed_h_pre", "x @ W1 + b1")], "a student")

    def counts() -> dict[str, int]:
        try:
            return bar_counts(lesson.teacher.chart("build_class_progress"))
        except KeyError:
            return {}

    lesson.until(lambda: counts().get("h_pre") == 2, counts)
    lesson.tick()
    assert counts()["h_pre"] == 2


def test_followers_switch_page_with_the_teacher_s_edited_arrays_in_a_real_session(app):
    """catch_up hands st.switch_page the edited arrays (w, x) as query parameters, which
    raises in a real session if a widget binds one of them: the Lesson preset edits both,
    and the students follow the teacher to two other pages."""
    lesson = Lesson(app.port)
    lesson.act("menu: Neurons", lambda: lesson.teacher.go("Neurons"))
    lesson.act("preset Lesson", lambda: lesson.teacher.press("Lesson"))
    assert "w=" in lesson.teacher.query and "x=" in lesson.teacher.query
    for path in ("Key_value_memory", "Build_it"):
        lesson.act(f"menu: {path}", lambda p=path: lesson.teacher.go(p))
        for student in lesson.students:
            assert "w=" in student.query and "x=" in student.query, student.query


def test_a_control_in_a_fragment_reaches_the_class_view(app):
    """Key–value memory's scale slider lives in a fragment: moving it reruns only that
    part of the teacher's page, which records nothing. The teacher's next publishing
    reruns the whole page, so the class view draws the edit at the new scale."""
    lesson = Lesson(app.port, students=1)
    lesson.act("menu: Key_value_memory", lambda: lesson.teacher.go("Key_value_memory"))
    (student,) = lesson.students
    assert in_class_view(student)
    before = [json.loads(c)["data"] for c in student.shown.charts]
    teacher = lesson.teacher
    edited = json.loads(teacher.use(teacher.control("scale"), 2.0).charts[0])["data"]
    assert edited != before[-1]  # the fragment drew the edit at the new scale
    lesson.trail.append("scale 2")
    lesson.until(  # the teacher's publishing reruns the whole page, at the new scale
        lambda: json.loads(teacher.shown.charts[-1])["data"] == edited,
        "the teacher's whole page draws the edit",
    )
    lesson.caught_up()
    assert in_class_view(student) and same_view(student, teacher)
    assert json.loads(student.shown.charts[-1])["data"] == edited

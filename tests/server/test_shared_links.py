"""A shared link shares the view, never the guesses: its reader predicts before seeing
the answer. Read from the protocol, as a browser receives the page; that a guess never
enters the address a browser writes is checked in tests/server/test_visitor_sequences.py
(a protocol session writes a bound control's value there as the browser does)."""

from __future__ import annotations

from harness.class_protocol import Participant

ASK = "Make your guess above to see the answer."


def test_a_link_that_still_holds_a_guess_asks_its_reader_and_drops_the_guess(server):
    reader = Participant(server.port, "x1=-2&x2=-2&guess_home=neither")  # an older version's link
    assert ASK in reader.shown.texts
    assert not [n for n in reader.shown.notes if n.startswith(("Right", "Not this time"))]
    assert reader.values["guess_home"] == "not sure yet"
    assert "guess" not in (reader.shown.address or "") and "x1=-2" in reader.query


# Every page's address and title as links shared before the page files were renamed
# (app_pages/1_Neurons.py became app_pages/Neurons.py): each must open the same page.
ADDRESSES = {
    "": "FFN Explorer",
    "Neurons": "Neurons: who fires, per token",
    "Key_value_memory": "Key–value memory: match a pattern, write a value",
    "Activations": "Activations: why the bend matters",
    "Collapse": "Collapse: take the nonlinearity away",
    "Position-wise": "Position-wise: the same FFN at every token",
    "Backprop": "Backprop & gradient check",
    "Build_it": "Build it: write the forward and backward pass",
    "Traps": "Traps: three mistakes of an FFN written by hand",
    "Scale_and_cost": "Scale & cost: where the parameters and FLOPs live",
    "Mixture_of_experts": "Mixture of experts: many FFNs stored, a few run per token",
    "Superposition": "Superposition: more features than dimensions",
    "Memory_lab": "Memory lab: where the facts live",
    "Real_model": "Real model: keys and values in a trained transformer",
    "Language_model": "Language model: SwiGLU inside a next-token predictor",
    "Glossary": "Glossary and notation",
}


def test_every_address_shared_before_opens_the_same_page_with_its_settings(server):
    """Each page by its old address, with a setting in the link that the page keeps."""
    reader = Participant(server.port)
    assert sorted(reader.shown.pages) == sorted(ADDRESSES)  # the menu's addresses, exactly
    for path, title in ADDRESSES.items():
        with Participant(server.port, "d_ff=24&presenter=true", path) as visitor:
            assert visitor.shown.title == title, path
            assert not visitor.shown.exceptions, path
            assert visitor.values["presenter"] == "True", path
            if "d_ff" in visitor.values:  # a page that draws the sidebar's model
                assert visitor.values["d_ff"] == "24", path
    reader.close()

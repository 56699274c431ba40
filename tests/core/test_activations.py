"""Each activation and its derivative against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import SCALAR_ACTIVATIONS

from ffn_core import ACTIVATIONS, get_activation

NAMES = list(ACTIVATIONS)
# A wide range, dense near zero where the curves differ, out to |z| = 40 where Phi(z)
# is about 1e-350 and a naive erf formula would cancel to exactly 0.
WIDE = np.concatenate([np.linspace(-40, 40, 801), np.linspace(-3, 3, 601), [-1e-8, 0.0, 1e-8]])


def test_registry_holds_the_contract_names_with_labels_and_formulas():
    assert set(ACTIVATIONS) == {"relu", "gelu", "gelu_tanh", "silu", "relu_squared", "identity"}
    for name, act in ACTIVATIONS.items():
        assert act.name == name
        assert act.label and act.formula and act.slope and act.about
        assert callable(act.fn) and callable(act.derivative)
    assert len({a.label for a in ACTIVATIONS.values()}) == len(ACTIVATIONS)  # one per label


# Each record's facts, read off its own function on a grid: what a page says of an
# activation (silent below 0, a kink, a 0-or-1 gate, a straight line) must be so.
GRID = np.concatenate([np.linspace(-6, 6, 1201), [-1e-9, 0.0, 1e-9]])


@pytest.mark.parametrize("name", NAMES)
def test_each_record_s_facts_hold_for_its_function(name):
    act = ACTIVATIONS[name]
    below = GRID[GRID <= 0]
    silent = np.all(act.fn(below) == 0) and np.all(act.derivative(below) == 0)
    assert act.zero_below == silent
    step = 1e-7  # the slope on either side of 0: a jump there is a kink
    jump = abs(float(act.derivative(np.array(step)) - act.derivative(np.array(-step))))
    assert act.kink == (jump > 0.5)
    assert act.gate == (set(np.unique(act.derivative(GRID)).tolist()) == {0.0, 1.0})
    straight = np.allclose(act.fn(GRID), GRID * float(act.derivative(np.array(0.0))))
    assert act.bends == (not straight)


@pytest.mark.parametrize("name", NAMES)
def test_each_record_s_notebook_code_is_its_function(name):
    """The plain NumPy a notebook writes (no SciPy) gives the core's values and slopes."""
    scope = {"np": np}
    exec(ACTIVATIONS[name].code + "\n" + ACTIVATIONS[name].slope_code, scope)
    z = np.linspace(-8, 8, 1601)
    np.testing.assert_allclose(scope["act"](z), ACTIVATIONS[name].fn(z), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(
        scope["act_slope"](z[np.abs(z) > 1e-9]),
        ACTIVATIONS[name].derivative(z[np.abs(z) > 1e-9]),
        rtol=1e-9,
        atol=1e-12,
    )


def test_squared_relu_is_relu_times_itself_with_twice_relu_as_its_slope():
    z = np.array([-3.0, -0.5, 0.0, 0.25, 2.0])
    act = get_activation("relu_squared")
    np.testing.assert_array_equal(act.fn(z), [0.0, 0.0, 0.0, 0.0625, 4.0])
    np.testing.assert_array_equal(act.derivative(z), [0.0, 0.0, 0.0, 0.5, 4.0])


@pytest.mark.parametrize("name", NAMES)
def test_function_matches_scalar_math_reference(name):
    expected = np.array([SCALAR_ACTIVATIONS[name](float(z)) for z in WIDE])
    got = ACTIVATIONS[name].fn(WIDE.copy())
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-300)


def test_exact_gelu_is_not_the_tanh_approximation():
    z = np.linspace(-4, 4, 2001)
    gap = np.abs(ACTIVATIONS["gelu"].fn(z) - ACTIVATIONS["gelu_tanh"].fn(z))
    assert 1e-5 < gap.max() < 1e-3  # close, but measurably different


def test_gelu_far_tails_are_relative_accurate():
    # For z << 0, GELU is a tiny negative number; its relative accuracy is what a
    # polynomial or 1 + erf formula loses.
    z = np.array([-37.0, -30.0, -20.0, -10.0])
    expected = np.array([SCALAR_ACTIVATIONS["gelu"](float(v)) for v in z])
    assert np.all(expected < 0)
    np.testing.assert_allclose(ACTIVATIONS["gelu"].fn(z), expected, rtol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_derivative_matches_float64_centred_differences(name):
    # Stay 1e-3 away from ReLU's kink, where the derivative does not exist.
    z = np.linspace(-12, 12, 2401)
    z = z[np.abs(z) > 1e-3]
    eps = 1e-6
    f = ACTIVATIONS[name].fn
    numeric = (f(z + eps) - f(z - eps)) / (2 * eps)
    np.testing.assert_allclose(ACTIVATIONS[name].derivative(z), numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    ("name", "closed_form"),
    [
        ("relu", lambda z: (z > 0).astype(float)),
        ("identity", np.ones_like),
        ("relu_squared", lambda z: np.where(z > 0, 2 * z, 0.0)),
        # silu'(z) = sigma(z) + z sigma(z) (1 - sigma(z)), written differently from the core
        ("silu", lambda z: 1 / (1 + np.exp(-z)) + z * np.exp(-z) / (1 + np.exp(-z)) ** 2),
    ],
)
def test_derivative_matches_a_closed_form(name, closed_form):
    z = np.linspace(-20, 20, 401)
    np.testing.assert_allclose(ACTIVATIONS[name].derivative(z), closed_form(z), rtol=1e-12)


def test_gelu_derivative_known_values():
    # GELU'(0) = Phi(0) = 1/2; far right the slope tends to 1, far left to 0.
    d = ACTIVATIONS["gelu"].derivative(np.array([0.0, 40.0, -40.0]))
    np.testing.assert_allclose(d, [0.5, 1.0, 0.0], atol=1e-15)


@pytest.mark.parametrize("name", NAMES)
def test_large_inputs_stay_finite_without_warnings(name):
    z = np.array([-1e3, -700.0, -50.0, 50.0, 700.0, 1e3])
    act = ACTIVATIONS[name]
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        y, dy = act.fn(z), act.derivative(z)
    assert np.all(np.isfinite(y)) and np.all(np.isfinite(dy))
    # Far to the right each is its scalar reference: z itself, or z² for Squared ReLU.
    expected = [SCALAR_ACTIVATIONS[name](float(v)) for v in z[-3:]]
    np.testing.assert_allclose(y[-3:], expected, rtol=1e-12)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtype_and_shape_are_kept(name, dtype):
    z = np.linspace(-3, 3, 24, dtype=dtype).reshape(2, 3, 4)
    act = ACTIVATIONS[name]
    for result in (act.fn(z), act.derivative(z)):
        assert result.dtype == dtype
        assert result.shape == z.shape


@pytest.mark.parametrize("name", NAMES)
def test_float32_agrees_with_float64(name):
    z = np.linspace(-8, 8, 321)
    act = ACTIVATIONS[name]
    np.testing.assert_allclose(act.fn(z.astype(np.float32)), act.fn(z), rtol=1e-5, atol=1e-6)


def test_unknown_activation_names_the_known_ones():
    with pytest.raises(ValueError, match="relu, gelu, gelu_tanh, silu, relu_squared, identity"):
        get_activation("tanh")


def test_gelu_tanh_equals_the_literal_tanh_formula():
    # The core computes z * sigmoid(2u); the textbook writes 0.5 z (1 + tanh(u)).
    z = np.linspace(-5, 5, 1001)
    u = np.sqrt(2 / np.pi) * (z + 0.044715 * z**3)
    literal = 0.5 * z * (1 + np.tanh(u))
    np.testing.assert_allclose(ACTIVATIONS["gelu_tanh"].fn(z), literal, rtol=1e-8, atol=1e-15)

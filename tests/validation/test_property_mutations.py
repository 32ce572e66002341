r"""Power of the property catalogue: planted errors must be caught, and docs/verify.md says by which property.

The planted errors are public (:mod:`symrmt.testing.planted`): wrong copies of the derivation (a
wrong sign, a dropped term, a swapped index, planted by SymPy in the package's own systems and
compiled and solved by the package's machinery) and wrong outputs (an error or a density scaled
by 1.01). Every property of :data:`symrmt.testing.CATALOGUE` runs on each at
:data:`symrmt.testing.planted.POINT`.

Asserted:

* every property passes on the real theory at that point (so a catch is not an artefact of the
  point), and on the *unplanted* derivation rebuilt through the same route (so a catch is not an
  artefact of the route);
* the table of docs/verify.md lists every planted error and every property, and every property
  catches at least one planted error by a wrong value (not only by refusal);
* each planted error of issue 25 (an error scaled by 1.01, a_1 dropped from one block, w_K and
  w_Q swapped in one term) and the density's is caught by exactly the properties the table lists
  for it (the others, slow: the whole table is what :func:`~symrmt.testing.planted.power` gives).
"""
from __future__ import annotations

import pathlib
import re

import pytest

from symrmt.derive import attention_system, linear_system
from symrmt.testing import CATALOGUE, DerivedTheory, PackageTheory
from symrmt.testing.planted import PLANTED, outcomes, planted_theory, power, power_markdown

DOC = pathlib.Path(__file__).parents[2] / "docs" / "verify.md"
#: Run in the default suite; the others (and the whole table) under @slow.
QUICK = ("error_scaled", "a1_dropped_in_one_block", "swap_wk_wq_in_one_term", "density_scaled")


def documented() -> dict[str, dict[str, str]]:
    """The table of docs/verify.md between its markers: planted error -> {property: "value" | "refusal"}."""
    text = DOC.read_text()
    block = text.split("<!-- power table: begin -->")[1].split("<!-- power table: end -->")[0]
    table = {}
    for line in block.strip().splitlines()[2:]:
        name, _, caught = (cell.strip() for cell in line.strip().strip("|").split("|"))
        table[name.strip("`")] = {p: ("refusal" if how else "value")
                                  for p, how in re.findall(r"`(\w+)`( \(refusal\))?", caught)}
    return table


@pytest.mark.parametrize("theory", [PackageTheory(), "unplanted"], ids=["public-api", "rebuilt"])
def test_every_property_passes_on_the_real_theory(theory):
    if theory == "unplanted":
        theory = DerivedTheory("unplanted", attention_system(), linear_system())
    failed = {k: v for k, v in outcomes(theory).items() if v != "pass"}
    assert not failed, failed


def test_table_lists_every_planted_error_and_every_property_catches_one():
    table = documented()
    assert list(table) == list(PLANTED)
    caught_by_value = {p for row in table.values() for p, how in row.items() if how == "value"}
    assert set(CATALOGUE) <= caught_by_value, f"no planted error is caught by {sorted(set(CATALOGUE) - caught_by_value)}"
    assert {p for row in table.values() for p in row} <= set(CATALOGUE)


@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n in QUICK else pytest.mark.slow) for n in PLANTED])
def test_planted_error_is_caught_as_documented(name):
    got = outcomes(planted_theory(name))
    crashed = {k: v for k, v in got.items() if v.startswith("error")}
    assert not crashed, f"{name}: checks crashed instead of reporting: {crashed}"
    violated = {k: ("refusal" if "gave no physical solution" in v else "value")
                for k, v in got.items() if v.startswith("violated")}
    assert violated, f"planted error {name} passed every property: {got}"
    assert violated == documented()[name], f"{name}: got {violated}, documented {documented()[name]}"


@pytest.mark.slow
def test_documented_table_is_what_power_gives():
    """The markdown of docs/verify.md is power_markdown of power(): regenerate it with that if a property changes."""
    text = DOC.read_text()
    assert power_markdown(power()) in text

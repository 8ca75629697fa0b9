"""The probe's cases: one record per call the offline author probes, and the run that answers them.

A trial audit and task analysis both plan a few calls per function, run them all in one probe
script per world, then read each call's answers beside why it was planned. Keeping the why and
the answers on one record (``Case``) per call, grouped per function (``Plan``), replaces parallel
index sets and dicts keyed by the same call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from testjack_tui.authors.base import AuthorContext
from testjack_tui.authors.offline.probe import Outcome, run_probe
from testjack_tui.authors.offline.task_view import TaskView
from testjack_tui.pysource.calls import CallArgs
from testjack_tui.pysource.signatures import Access, Target


# eq=False: two cases of the same call stay two cases (a tie removes the one it was found on)
@dataclass(eq=False)
class Case:
    """One call of the probe: why it is there and, once probed, what each world answered."""

    call: CallArgs
    stated: bool = False  # one of P's or T0's calls: the reference's paths on it are what they state
    frontier: bool = False  # an integer argument below what P and T0 pass (bounds.below_floor)
    counted: bool = False  # a stress candidate: its executed lines are counted (stress._at_once)
    glanced: bool = False  # its paths are read when short (amplify.ghosts)
    ref: Outcome | None = None
    mine: Outcome | None = None  # the trial's answer (trial audits only)
    label: str = ""  # what the trial audit made of it (see author._label)

    @property
    def traced(self) -> bool:
        # the reference's own path on a frontier input is read against the stated inputs' paths
        return self.stated or self.frontier


@dataclass(eq=False)
class Plan:
    """One function's share of a probe: how a test reaches it and the calls made of it."""

    target: Target
    access: Access
    floors: dict[int, int]  # what P and T0 pass (bounds.seed_floors)
    cases: list[Case] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.target.name

    def stated_paths(self) -> set[str]:
        """The reference's code paths (arcs) on P's and T0's calls."""
        return set().union(*(c.ref.arcs or () for c in self.cases if c.stated))


def imports_of(plans: list[Plan]) -> dict[str, list[str]]:
    """Per function, what its calls import: the probe's import groups."""
    return {p.name: list(p.access.imports) for p in plans}


def probe(ctx: AuthorContext, worlds: list[str], plans: list[Plan], view: TaskView) -> None:
    """Run every plan's cases in one probe script per world and record each case's answers."""
    cases = [c for p in plans for c in p.cases]
    calls = [(p.name, f"{p.access.expr}({c.call.source()})") for p in plans for c in p.cases]
    looks = {p.name: view.looks(p.target) for p in plans if p.target.binding == "constructor"}

    def marked(flag: str) -> frozenset[int]:
        return frozenset(i for i, c in enumerate(cases) if getattr(c, flag))

    outs = run_probe(ctx, worlds, calls, imports_of(plans), marked("traced"), looks,
                     marked("counted"), marked("glanced"))
    for case, ref in zip(cases, outs["reference"]):
        case.ref = ref
    for case, mine in zip(cases, outs.get("model", [])):
        case.mine = mine

"""The offline author: witnesses from P's examples, differential probes and amplified T0 tests.

No network, no model: everything it proposes is a plain pytest file that states one call and its
expected result, and every expectation is either written in P or produced by the reference in its
own world. The engine then certifies each candidate on the reference (3 of 3) as for any author.

- ``analyse_task`` (no trial): P's examples that T0 does not already check (explicit), T0's
  calls with mutated literals whose results the reference gives (implicit unless P states them),
  up to two stress witnesses per function: size-scaled inputs under a time limit (``stress_inputs``),
  and on a harness-graded task the test patch's own tests the harness does not grade (``patch_tests``).
- ``audit_trial``: the same examples when the trial gets them wrong, and differential probes of
  the functions both the reference and the trial change; each divergence becomes the smallest
  diverging call with the reference's result, at most ``per_function`` per function.
- ``refine``: a candidate that fails on the reference is re-imported from its own module (when the
  failure is an import) or gets its expectation regenerated from the reference.

Execution cost per trial audit: one probe in the reference world and one in the trial's world.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import replace
from typing import Any

from testjack_tui.authors.base import AuthorContext, AuthorFailed, Candidate
from testjack_tui.authors.offline import amplify, symbolic
from testjack_tui.authors.offline.cases import Case, Plan, imports_of, probe
from testjack_tui.authors.offline.boundary import on_boundary
from testjack_tui.authors.offline.bounds import Domain, below_floor, empty_input, frontier_args, seed_floors
from testjack_tui.pysource.calls import CallArgs, literal_ok, seed_number
from testjack_tui.authors.offline.comparison import Comparison
from testjack_tui.pysource.examples import Example
from testjack_tui.authors.offline.inputs import plan_inputs
from testjack_tui.authors.offline.language import unread_language
from testjack_tui.authors.offline.mutation import mutations
from testjack_tui.authors.offline.patch_tests import patch_test_candidates
from testjack_tui.authors.offline.repo_amplify import amplified_candidates
from testjack_tui.authors.offline.probe import CALL_LIMIT_S, Outcome, diverges, rounding_only, run_probe, slower
from testjack_tui.pysource.signatures import Access, Target, callers_of, functions_in, module_access, shared_targets
from testjack_tui.authors.offline.stress import larger, sized_input, stress_inputs
from testjack_tui.authors.offline.task_view import TaskView, existing_calls, input_shape, witness_calls
from testjack_tui.authors.offline.witnesses import Spec, call_key, render, requirement_text, shorten
from testjack_tui.domain.grounding import admits
from testjack_tui.domain.timing import states_time_bound
from testjack_tui.model import AuthorKind, Evidence, EvidenceKind, Requirement, RequirementKind

# what a timing witness allows, and how long a result witness on an input of the author's own
# waits for an answer (no answer there is slowness, not a wrong one): the reference answered in 1/20 s or less
WITNESS_DEADLINE_S = 5.0
STRESS_POOL = 8  # of task analysis's mutated inputs, how many of the largest are probed for a stress witness
_IMPORT_FAILURES = ("ModuleNotFoundError", "ImportError", "AttributeError: module", "cannot import name")


class OfflineAuthor:
    kind = AuthorKind.OFFLINE

    def __init__(self, seed: int = 0, per_function: int = 3, budget: int = 120, generate: int = 30,
                 amplify: bool = True, symbolic: bool = False, symbolic_budget: float = symbolic.TRIAL_S,
                 **_ignored: Any):
        self.seed = seed
        self.symbolic = symbolic  # ask CrossHair for inputs where the trial differs (``symbolic``)
        self.symbolic_budget = symbolic_budget  # its CPU seconds per trial
        self.per_function = per_function
        self.budget = budget
        self.generate = generate
        self.amplify = amplify
        self._specs: dict[str, tuple[Spec, Target]] = {}  # candidate code -> how it was made

    # ------------------------------------------------------------------ the checklist

    def requirements(self, ctx: AuthorContext) -> list[Requirement]:
        """P's examples as explicit clauses, each marked whether T0 already makes that call."""
        _reads(ctx)
        view = TaskView.of(ctx)
        out = []
        for name in sorted(view.targets):
            t0 = {c.key for c in view.t0_calls(name)}
            for ex, args in view.examples_of(name):
                rid = hashlib.sha256(f"{ctx.task.id}\0{ex.call}".encode()).hexdigest()[:10]
                text = f"P's example: {ex.call} " + (f"raises {ex.raises}" if ex.raises else f"returns {ex.expected}")
                out.append(Requirement(
                    run_id=ctx.task.run_id, task_id=ctx.task.id, id=f"r-{rid}", text=text,
                    kind=RequirementKind.EXPLICIT, covered_by_t0=args.key in t0,
                    trial_id=ctx.trial.id if ctx.trial else None,
                ))
        return out

    # ------------------------------------------------------------------ task analysis

    def analyse_task(self, ctx: AuthorContext) -> list[Candidate]:
        _reads(ctx)
        view = TaskView.of(ctx)
        known = existing_calls(ctx)
        out: list[Candidate] = []
        for name in sorted(view.targets):
            target = view.targets[name]
            access = view.access(target)
            if access is None:
                continue
            t0 = {call_key(name, c.source()) for c in view.t0_calls(name)}
            for ex, args in view.examples_of(name):
                key = call_key(name, args.source())
                if key in t0 or key in known:
                    continue  # T0 already checks it, or a witness does
                spec = Spec(name, access, args.source(), ex.expected, ex.raises, "prompt",
                            compare=view.comparison(name))
                out.append(self._candidate(spec, target, RequirementKind.EXPLICIT))
                known.add(key)
        if self.amplify:
            out += self._amplified(ctx, view, known)
            out += amplified_candidates(ctx)  # a repository task's graded tests, varied
        # a harness-graded task's test patch may hold tests the harness does not grade
        return out + patch_test_candidates(ctx)

    def _amplified(self, ctx: AuthorContext, view: TaskView, known: set[str]) -> list[Candidate]:
        """T0's calls with one literal mutated, run on the reference: plan, probe, then choose per function."""
        plans: list[Plan] = []
        # a mutation's key -> the T0 call it was mutated from, over every function (a later
        # function's mutation of the same arguments takes the key over, as it always has)
        parent: dict[str, CallArgs] = {}
        for name in sorted(view.targets):
            planned = self._amplify_plan(ctx, view, name, known)
            if planned is not None:
                plans.append(planned[0])
                parent.update(planned[1])
        if not plans:
            return []
        probe(ctx, ["reference"], plans, view)
        imports = imports_of(plans)
        out: list[Candidate] = []
        for plan in plans:
            out += self._amplified_of(ctx, view, plan, parent, imports, known)
        return out

    def _amplify_plan(self, ctx: AuthorContext, view: TaskView, name: str,
                      known: set[str]) -> tuple[Plan, dict[str, CallArgs]] | None:
        """One function's T0 calls and their admitted mutations, with each mutation's T0 call."""
        target = view.targets[name]
        seeds = view.t0_calls(name)
        access = view.access(target) if seeds else None
        if access is None:
            return None
        names = [p.name for p in target.params]
        domain = Domain.from_prompt(view.prompt, names)
        seed_keys = {c.key for c in view.seeds(name)}
        allowed = domain.narrowed_by(view.seeds(name))
        admitted: dict[str, tuple[CallArgs, CallArgs]] = {}  # key -> (mutation, its T0 call)
        for m, seed in sorted(((m, s) for s in seeds for m in mutations(s)),
                              key=lambda ms: (ms[0].size, ms[0].key)):
            if m.key in seed_keys or m.key in admitted or call_key(name, m.source()) in known:
                continue
            if (all(literal_ok(v) and allowed.admits(v) for v in m.values) and domain.admits_call(m, names)
                    and admits(ctx.task.domain, name, m)):
                admitted[m.key] = (m, seed)
        # the smallest make short witnesses; a few of the largest stay for the stress witness
        mutated = [m for m, _ in admitted.values()]
        if len(mutated) > self.budget:
            mutated = mutated[: self.budget - STRESS_POOL] + mutated[-STRESS_POOL:]
        floors = seed_floors(view.seeds(name))
        big = set(larger(seeds, mutated))
        plan = Plan(target, access, floors, [Case(s, stated=True) for s in seeds])
        for k, m in enumerate(mutated):
            frontier = below_floor(m, floors)  # see _on_purpose
            plan.cases.append(Case(m, frontier=frontier, counted=k in big, glanced=k not in big and not frontier))
        return plan, {key: seed for key, (_, seed) in admitted.items()}

    def _amplified_of(self, ctx: AuthorContext, view: TaskView, plan: Plan, parent: dict[str, CallArgs],
                      imports: dict[str, list[str]], known: set[str]) -> list[Candidate]:
        """One function's amplified witnesses, from its probed cases."""
        paths = plan.stated_paths()
        seeds = [c.call for c in plan.cases if c.stated]
        seed_out = [(c.call, c.ref) for c in plan.cases if c.stated]
        # a frontier input the reference answers by the paths T0's own calls take is an accident
        # of its code, not a requirement: no witness on it (as in the per-trial audit)
        accidents = [(c.call, c.ref) for c in plan.cases if c.frontier and not _on_purpose(c.ref, paths)]
        mut_out = [(c.call, c.ref) for c in plan.cases
                   if not c.stated and (not c.frontier or _on_purpose(c.ref, paths))]
        kept = amplify.picks(seed_out, mut_out, parent, view.prompt, paths, cap=self.per_function)
        taken = {p.call.key for p in kept}
        picks = [(p.call, p.outcome, _why(p)) for p in kept]  # (call, result, why) per pick
        # a size-scaled input also states the reference's result: a trial that stops there
        # (a RecursionError) or answers otherwise gives a wrong answer, which the timing
        # witnesses below, stating the time alone, do not see
        sized = sized_input(seeds, mut_out, taken)
        if sized is not None and amplify.usable(sized[1], view.prompt):
            picks.append((*sized, "The input is one of T0's inputs scaled up in size: the "
                          "reference's result there."))
        ghosts = {p.call.key for p in kept if p.rule == "ghost"}
        out = self._amplified_witnesses(ctx, view, plan, picks, ghosts, imports)
        emptied = _emptied(accidents, plan.floors)
        if emptied is not None:
            out.append(self._candidate(_answers_spec(plan.target, plan.access, *emptied, "amplified"), plan.target,
                                       RequirementKind.IMPLICIT))
        return out + self._stress_witnesses(view, plan, stress_inputs(seeds, mut_out, taken), known)

    def _amplified_witnesses(self, ctx: AuthorContext, view: TaskView, plan: Plan,
                             picks: list[tuple[CallArgs, Outcome, str]], ghosts: set[str],
                             imports: dict[str, list[str]]) -> list[Candidate]:
        """A result witness per pick, except on inputs that are ties for the reference."""
        ties = on_boundary(ctx, [(plan.name, plan.access.expr, c) for c, *_ in picks], imports)
        out: list[Candidate] = []
        for k, (call, res, why) in enumerate(picks):
            if k in ties:
                continue
            stated = view.stated(plan.name, call)
            spec = Spec(plan.name, plan.access, call.source(), res.repr if res.returned else None,
                        res.type_name if res.raised else None, "amplified", why,
                        patience=WITNESS_DEADLINE_S, shape=res.shape, compare=view.comparison(plan.name),
                        doubt=REFERENCE_PATH if call.key in ghosts and not stated else "")
            out.append(self._candidate(spec, plan.target, RequirementKind.EXPLICIT if stated else RequirementKind.IMPLICIT))
        return out

    def _stress_witnesses(self, view: TaskView, plan: Plan, stress: list[tuple[CallArgs, Outcome]],
                          known: set[str]) -> list[Candidate]:
        """Timing witnesses on size-scaled inputs the reference answers at once."""
        bounded = states_time_bound(view.prompt)
        out: list[Candidate] = []
        for call, res in stress:
            if call_key(plan.name, call.source()) in known:
                continue
            spec = Spec(plan.name, plan.access, call.source(), res.repr, None, "amplified",
                        "A size-scaled input the reference answers at once: a trial that gives no "
                        "answer in time is slow.", deadline=WITNESS_DEADLINE_S, shape=res.shape)
            out.append(self._candidate(spec, plan.target, RequirementKind.EXPLICIT if bounded else RequirementKind.IMPLICIT))
        return out

    # ------------------------------------------------------------------ per-trial audit

    def audit_trial(self, ctx: AuthorContext) -> list[Candidate]:
        """Differential probes of the functions both patches change: plan, probe, classify, choose."""
        if ctx.trial is None or ctx.read_file is None:
            return []
        _reads(ctx)
        view = TaskView.of(ctx)
        targets, helpers, callers = _probed_targets(ctx, view)
        if not targets:
            return []
        found = self._searched(ctx, view, [t for t in targets if t not in helpers])
        plans = [p for p in (self._trial_plan(ctx, view, t, found.inputs.get(t.name, [])) for t in targets)
                 if p is not None]
        probe(ctx, ["reference", "model"], plans, view)
        ctx.findings += _symbolic_findings(ctx, plans, found)
        for plan in plans:
            paths = plan.stated_paths()
            for case in plan.cases:
                case.label = _label(view, plan, case, paths)
        found = {p.name: [c for c in p.cases if c.label in (DIVERGES, SPECIAL)] for p in plans}
        ctx.findings += _helper_findings(ctx, {h.name: found.pop(h.name, []) for h in helpers}, callers)
        _drop_ties(ctx, plans, found)
        known = existing_calls(ctx)
        timing = self._timing(ctx, view, plans, known)
        shown = {call_key(t.name, c.source()) for t in targets for c in witness_calls(ctx, t.name, refuting=True, answers=True)}
        twins = {call_key(t.name, c.source()) for t in targets for c in witness_calls(ctx, t.name, refuting=False, answers=True)}
        # the reference's own path for an input below P's and T0's, over every function
        special = {c.call.key for p in plans for c in p.cases if c.label == SPECIAL}
        out: list[Candidate] = []
        for plan in plans:
            for case in self._fewest(view, plan.name, found.get(plan.name, []), known, shown, twins):
                doubt = REFERENCE_PATH if case.call.key in special else ""
                out.append(self._divergence_candidate(view, plan.target, plan.access, case.call, case.ref,
                                                      case.mine, doubt))
            crashed = [c for c in plan.cases if c.label == CRASHED]
            if crashed and not plan.target.private:
                case = min(crashed, key=lambda c: c.call.size)
                if call_key(plan.name, case.call.source()) not in known:
                    out.append(self._candidate(_answers_spec(plan.target, plan.access, case.call, case.ref, "probe"),
                                               plan.target, RequirementKind.IMPLICIT))
        return out + timing

    def _searched(self, ctx: AuthorContext, view: TaskView, targets: list[Target]) -> symbolic.Found:
        """The symbolic search's candidate inputs (none when it is off: ``--symbolic``)."""
        if not self.symbolic or self.symbolic_budget <= 0:
            return symbolic.Found()
        return symbolic.search(ctx, view, targets, self.symbolic_budget)

    def _trial_plan(self, ctx: AuthorContext, view: TaskView, target: Target,
                    found: list[CallArgs] = ()) -> Plan | None:
        """The inputs a trial audit probes one function on (``found``: the symbolic search's)."""
        access = view.access(target)
        if access is None:
            return None  # a method on an object no test shows how to build
        domain = Domain.from_prompt(view.prompt, [p.name for p in target.params])
        stated_seeds = view.seeds(target.name)
        floors = seed_floors(stated_seeds)
        stated_keys = {c.key for c in stated_seeds}
        # existing witnesses' calls go into the probe too: a divergence they already show
        # needs no new witness (see _fewest)
        seeds = stated_seeds + witness_calls(ctx, target.name)
        number = seed_number(ctx.task.id, ctx.trial.id, self.seed, target.name)
        calls = plan_inputs(target, seeds, domain, number, self.budget, self.generate,
                            keep=lambda c, name=target.name: admits(ctx.task.domain, name, c), found=list(found))
        return Plan(target, access, floors, [
            Case(c, stated=c.key in stated_keys, frontier=c.key not in stated_keys and below_floor(c, floors))
            for c in calls])

    def _timing(self, ctx: AuthorContext, view: TaskView, plans: list[Plan], known: set[str]) -> list[Candidate]:
        """A slow finding per function the trial is slower on (its smallest such input), and a
        timing witness where the trial gives no answer in time (its largest, see ``_fewest``)."""
        timing: list[Candidate] = []
        for plan in sorted(plans, key=lambda p: p.name):
            slow = [c for c in plan.cases if c.label in (SLOW, TIMEOUT)]
            if slow:
                case = min(slow, key=lambda c: c.call.size)
                ctx.findings.append(slow_finding(ctx, plan.name, plan.access, case.call, case.ref, case.mine))
            timeouts = [c for c in plan.cases if c.label == TIMEOUT]
            if not timeouts:
                continue
            case = min(timeouts, key=lambda c: c.call.size)
            if call_key(plan.name, case.call.source()) not in known:
                # shared with every trial as a timing witness: each trial it times out on gets a
                # slow finding of its own; it refutes only where P asks for speed (``bounded``)
                timing.append(self._divergence_candidate(view, plan.target, plan.access, case.call, case.ref,
                                                         case.mine))
        return timing

    def _fewest(self, view: TaskView, name: str, divergences: list[Case], known: set[str],
                shown: set[str] = frozenset(), twins: set[str] = frozenset()) -> list[Case]:
        """The simplest divergence of each kind (what the reference and the trial each did), capped.

        All of them refute this one trial; different kinds are kept because A.2 may judge them
        differently (one may be ambiguous, another a plain defect).
        """
        def kind_of(c: Case) -> tuple:
            ref, mine = c.ref, c.mine
            return (ref.status, ref.type_name if ref.raised else "", mine.status, mine.type_name if mine.raised else "")

        covered = {kind_of(c) for c in divergences if call_key(name, c.call.source()) in shown}
        # a witness that cannot refute (ambiguous) and already fails here covers only inputs of its
        # own shape: a second '9A' duration would be ruled the same way, while another kind of
        # input may show a plain defect that does refute
        shaped = {(kind_of(c), input_shape(c.call)) for c in divergences if call_key(name, c.call.source()) in twins}
        best: dict[tuple, Case] = {}
        # an input P states comes first: its witness is explicit, and A.2 cannot call it ambiguous
        # a timeout is shown best by the largest such input: on the smallest one the trial may
        # only just miss the probe's limit, and then meet the witness's
        ordered = sorted(divergences, key=lambda c: (not view.stated(name, c.call),
                                                     -c.call.size if c.mine.status == "timeout" else c.call.size,
                                                     c.call.key))
        for case in ordered:
            kind = kind_of(case)
            if call_key(name, case.call.source()) in known or kind in covered or (kind, input_shape(case.call)) in shaped:
                continue  # a witness already shows this kind of divergence on this trial
            best.setdefault(kind, case)
        ranked = sorted(best.values(), key=lambda c: (not view.stated(name, c.call), c.call.size, c.call.key))
        return ranked[: self.per_function]

    def _divergence_candidate(
        self, view: TaskView, target: Target, access: Access, call: CallArgs, ref: Outcome,
        mine: Outcome | None = None, doubt: str = "",
    ) -> Candidate:
        expected = ref.repr if ref.returned else None
        raises = ref.type_name if ref.raised else None
        stated_example = next(
            (ex for ex, a in view.examples_of(target.name) if a.key == call.key and _same_claim(ex, expected, raises)),
            None,
        )
        if stated_example is not None:
            spec = Spec(target.name, access, call.source(), stated_example.expected, stated_example.raises, "prompt",
                        compare=view.comparison(target.name))
        elif mine is not None and mine.status == "timeout":
            spec = Spec(target.name, access, call.source(), expected, raises, "probe",
                        "The trial does not answer in time for this input; the reference answers at once.",
                        deadline=WITNESS_DEADLINE_S, shape=ref.shape)
        else:
            spec = Spec(target.name, access, call.source(), expected, raises, "probe",
                        "The trial gives a different result for this input.", patience=WITNESS_DEADLINE_S,
                        shape=ref.shape, compare=view.comparison(target.name), doubt=doubt)
        # P's own words decide a timing witness where P asks for speed: the limit is stated
        explicit = view.stated(target.name, call) or (spec.deadline is not None and states_time_bound(view.prompt))
        kind = RequirementKind.EXPLICIT if explicit else RequirementKind.IMPLICIT
        return self._candidate(spec, target, kind)

    # ------------------------------------------------------------------ refinement

    def refine(self, ctx: AuthorContext, candidate: Candidate, output: str) -> Candidate | None:
        made = self._specs.get(candidate.code)
        if made is None:
            return None
        spec, target = made
        direct = module_access(target)
        if any(s in output for s in _IMPORT_FAILURES) and spec.access != direct:
            return self._candidate(replace(spec, access=direct), target, candidate.kind)
        if spec.source == "prompt":
            return None  # P and the reference disagree: nothing to fix on our side
        shown = list(ast.literal_eval(spec.expected or "{}")) if spec.shape == "view" else None
        res = run_probe(ctx, ["reference"], [(target.name, f"{spec.access.expr}({spec.args})")],
                        {target.name: list(spec.access.imports)},
                        looks={target.name: shown} if shown is not None else None)["reference"][0]
        if not amplify.usable(res, ctx.task.prompt) or (spec.answers_only and not res.returned):
            return None
        fixed = replace(spec, expected=res.repr if res.returned else None, raises=res.type_name if res.raised else None,
                        shape=res.shape)
        if fixed == spec:
            return None
        return self._candidate(fixed, target, candidate.kind)

    # ------------------------------------------------------------------ helpers

    def _candidate(self, spec: Spec, target: Target, kind: RequirementKind) -> Candidate:
        code = render(spec)
        self._specs[code] = (spec, target)
        note = {
            "prompt": "P states this example.",
            "amplified": "An official test's input with one literal changed; the reference gives the expectation.",
            "probe": "A differential probe found that the trial and the reference disagree here.",
        }[spec.source]
        return Candidate(requirement=requirement_text(spec), kind=kind, code=code, note=note, doubt=spec.doubts)


def _reads(ctx: AuthorContext) -> None:
    """Raise AuthorFailed, with the reason, for a task whose code is not Python (``language``)."""
    why = unread_language(ctx.task)
    if why:
        raise AuthorFailed(why)


def _callers(ctx: AuthorContext, helpers: list[Target], view: TaskView) -> dict[str, list[Target]]:
    """Per private helper, the public functions and methods of its file that name it, exist in the
    trial's world with the same required parameters, and that a test can reach."""
    out: dict[str, list[Target]] = {}
    for helper in helpers:
        ref = ctx.read_file("reference", helper.path) or ""
        mine = functions_in(ctx.read_file("model", helper.path) or "", helper.path)
        out[helper.name] = [c for name, c in sorted(callers_of(ref, helper.path, helper.attr).items())
                            if name in mine and len(mine[name].required) == len(c.required)
                            and view.access(c) is not None]
    return out


def _probed_targets(ctx: AuthorContext, view: TaskView) -> tuple[list[Target], list[Target], dict[str, list[Target]]]:
    """What a trial audit probes: the public functions both patches change, then the public callers
    of the private helpers both change, then those helpers; with the helpers and, per helper, its callers.

    A private helper is probed only when public code reaches it; the public callers are probed
    too (changed or not), and only they may give witnesses (see ``_helper_findings``).
    """
    changed = shared_targets(ctx.task.reference_patch, ctx.trial.patch, ctx.read_file, classes=True, private=True)
    targets = [t for t in changed if not t.private]
    callers = _callers(ctx, [t for t in changed if t.private], view)
    helpers = [t for t in changed if t.private and callers.get(t.name)]
    targets += sorted({c.name: c for cs in callers.values() for c in cs
                       if c.name not in {t.name for t in targets}}.values(), key=lambda t: t.name)
    return targets + helpers, helpers, callers


# what one probed case shows on a trial (``_label``); "" for nothing to report
SLOW = "slow"  # the trial answers, slower than the reference
TIMEOUT = "timeout"  # the trial gives no answer in time where the reference answers at once
DIVERGES = "diverges"  # the trial answers otherwise
SPECIAL = "special"  # otherwise, on a frontier input the reference answers by a path of its own
CRASHED = "crashed"  # the trial raises on an empty frontier input the reference answers


def _label(view: TaskView, plan: Plan, case: Case, stated_paths: set[str]) -> str:
    """What one probed case shows on the trial (one of the labels above, or "")."""
    ref, mine = case.ref, case.mine
    if slower(ref, mine) and not plan.target.private:
        # slowness is not wrongness: a finding of its own, and a timing witness that
        # refutes only where P asks for speed
        return TIMEOUT if mine.status == "timeout" else SLOW
    if not (diverges(ref, mine) and amplify.usable(ref, view.prompt)):
        return ""
    if rounding_only(ref, mine):
        return ""  # a float's rounding of a huge integer, on a number only mutation made
    if _judged_alike(view.comparison(plan.name), ref, mine):
        return ""  # T0 would count the trial's answer as the reference's (truth, order, tolerance)
    # the reference's own path can speak for one argument below what P and T0 pass, not
    # for two at once: f(0, -1) may take a branch written for 0 before the -1 is ever read
    if case.frontier and (frontier_args(case.call, plan.floors) > 1 or not _on_purpose(ref, stated_paths)):
        if ref.returned and mine.raised and empty_input(case.call, plan.floors):
            return CRASHED  # no answer at all
        return ""
    return SPECIAL if case.frontier else DIVERGES


def _helper_findings(ctx: AuthorContext, divergences: dict[str, list[Case]],
                     callers: dict[str, list[Target]]) -> list[Evidence]:
    """A private helper that answers otherwise than the reference's: a finding, never a witness.

    A witness belongs to the task and is replayed on every trial; one calling a helper directly
    would refute a trial whose public functions give every answer P asks for, only because its
    helper of the same name works otherwise. So a helper's divergence is shown to the analyst
    (the smallest diverging input, and the public code that reaches the helper), and witnesses
    come only from calls of that public code, probed in the same run.
    """
    out = []
    for name, found in sorted(divergences.items()):
        if not found:
            continue
        case = min(found, key=lambda c: (c.call.size, c.call.key))
        ref, mine = case.ref, case.mine
        theirs, ours = _answer(mine), _answer(ref)
        reach = ", ".join(c.name for c in callers.get(name, []))
        out.append(Evidence(
            run_id=ctx.task.run_id, trial_id=ctx.trial.id if ctx.trial else "", kind=EvidenceKind.HELPER,
            detail=(f"private helper {name}({shorten(case.call.source(), 120)}) {theirs}; the reference's {ours} "
                    f"(reached by {reach}; a finding, never a refutation)"),
            detector="probe",
        ))
    return out


def _symbolic_findings(ctx: AuthorContext, plans: list[Plan], found: symbolic.Found) -> list[Evidence]:
    """A ``symbolic`` finding per input the search proposed and the probe ran (the input, both
    worlds' answers as the probe saw them, the search's CPU time), and one per search that crashed
    or hung. Evidence only: an input refutes, if ever, as a witness of the probe's, like any other."""
    out = []
    trial_id = ctx.trial.id if ctx.trial else ""
    for plan in plans:
        proposed = {c.key for c in found.inputs.get(plan.name, [])}
        for case in plan.cases:
            if case.call.key not in proposed or case.ref is None or case.mine is None:
                continue
            out.append(Evidence(
                run_id=ctx.task.run_id, trial_id=trial_id, kind=EvidenceKind.SYMBOLIC, detector="crosshair",
                detail=(f"{plan.target.attr}({shorten(case.call.source(), 200)}): the reference {_answer(case.ref)}; "
                        f"the trial {_answer(case.mine)} (proposed by the symbolic search in "
                        f"{found.seconds.get(plan.name, 0.0):.1f} s of CPU; a candidate input, never a refutation by itself)"),
            ))
    out += [Evidence(run_id=ctx.task.run_id, trial_id=trial_id, kind=EvidenceKind.SYMBOLIC, detector="crosshair",
                     detail=line) for line in found.log if any(f" {name} " in line for name in found.trouble)]
    return out


def _answer(outcome: Outcome) -> str:
    """One world's answer in a finding: ``returns 3``, ``raises ValueError``, ``gives no answer in time``."""
    if outcome.raised:
        return f"raises {outcome.type_name}"
    if outcome.returned:
        return f"returns {shorten(outcome.repr or outcome.type_name, 80)}"
    return "gives no answer in time" if outcome.status == "timeout" else f"gives no answer ({outcome.status})"


def _drop_ties(ctx: AuthorContext, plans: list[Plan], found: dict[str, list[Case]]) -> None:
    """Forget the divergences whose input is a tie for the reference (see ``boundary``)."""
    accesses = {p.name: p.access for p in plans}
    checked = [(name, c) for name in sorted(found) for c in sorted(found[name], key=lambda c: (c.call.size, c.call.key))]
    ties = on_boundary(ctx, [(name, accesses[name].expr, c.call) for name, c in checked], imports_of(plans))
    for k in ties:
        name, case = checked[k]
        found[name].remove(case)


def slow_finding(ctx: AuthorContext, name: str, access: Access, call: CallArgs, ref: Outcome, mine: Outcome) -> Evidence:
    """A ``slow`` finding: the input, the reference's time and the trial's (or that it had none)."""
    ref_s = f"{ref.seconds:.3f} s" if ref.seconds is not None else "at once"
    if mine.status == "timeout":
        took = f"gives no answer within the probe's {CALL_LIMIT_S:g} s limit"
    else:
        took = f"gives the reference's answer in {mine.seconds:.3f} s"
    return Evidence(
        run_id=ctx.task.run_id, trial_id=ctx.trial.id if ctx.trial else "", kind=EvidenceKind.SLOW,
        detail=f"{name.rsplit('.', 1)[-1]}({shorten(call.source(), 200)}): the reference answers in {ref_s}; the trial {took}",
        detector="probe",
    )


def _answers_spec(target: Target, access: Access, call: CallArgs, ref: Outcome, source: str) -> Spec:
    """An *answers* witness: any value will do, an exception will not (see ``_emptied``)."""
    return Spec(target.name, access, call.source(), ref.repr, None, source,
                "An empty input where P and T0 pass only non-empty ones, which the reference answers "
                "by the paths of its other inputs: its value there is an accident, but an exception "
                "is no answer.", patience=WITNESS_DEADLINE_S, shape=ref.shape, answers_only=True)


_CHANGED = "The input is one of T0's inputs with one literal changed"
# A.1 trusts the reference where P and T0 speak; on an input they never show, answered by code of
# the reference that none of their inputs run, its answer may be its author's choice, not P's
REFERENCE_PATH = ("the reference answers this input by code that none of P's examples or T0's inputs run: "
                  "its answer may be the reference's own choice rather than P's requirement")


def _judged_alike(compare: Comparison, ref: Outcome, mine: Outcome) -> bool:
    """Whether T0's way of comparing this function's answers would take the trial's for the reference's."""
    if not (ref.returned and mine.returned) or ref.shape or mine.shape:
        return False
    ok_r, expected = ref.value()
    ok_t, actual = mine.value()
    return ok_r and ok_t and compare.for_answer(expected) not in ("", "equal", "unread") \
        and compare.agrees(expected, actual)


def _why(pick: amplify.Pick) -> str:
    """What a witness on an amplified input says about how its input was chosen."""
    if pick.rule == "sensitive":
        return (f"{_CHANGED}, adding {', '.join(sorted(pick.adds))} (argument position: feature); the "
                "reference's answer changes with it.")
    if pick.rule == "spread":
        return f"{_CHANGED}; the reference's answer changes with it."
    if pick.rule == "ghost":
        return f"{_CHANGED}; on it the reference runs code that none of T0's inputs run."
    return f"{_CHANGED}."


def _emptied(accidents: list[tuple[CallArgs, Outcome]], floors: dict[int, int]) -> tuple[CallArgs, Outcome] | None:
    """Of the frontier inputs the reference answers by accident, the smallest that is empty as a
    whole (``bounds.empty_input``: every string and collection argument empty, one of them always
    filled by P and T0), where the reference returns a value.

    Its value is no requirement (counting an empty pattern in an empty text: correct trials answer
    otherwise), but nothing in P rules the empty input out, and a trial that raises on it (``l[0]`` on ``[]``) gives
    no answer at all. A negative or zero number below the seeds is left alone: a trial may reject it
    on purpose, as an input outside what the task is about.
    """
    for call, res in sorted(accidents, key=lambda cr: (cr[0].size, cr[0].key)):
        # (no pick of select or sensitive is among them: they choose from the non-frontier inputs)
        if res.returned and res.repr is not None and empty_input(call, floors):
            return call, res
    return None


def _on_purpose(ref: Outcome, stated_paths: set[str]) -> bool:
    """Whether the reference handles a frontier input by a path none of P's or T0's calls take.

    ``fib(0)`` reaches the reference's ``if n == 0: return 0``, written for that case and never
    tested: a requirement the reference's author had in mind. ``largest_divisor(1)`` runs the same
    lines as T0's ``largest_divisor(3)``: the reference's answer there is an accident of its loop,
    not a requirement, so a trial that answers otherwise is not refuted on it.
    """
    return ref.arcs is not None and bool(ref.arcs - stated_paths)


def _same_claim(ex: Example, expected: str | None, raises: str | None) -> bool:
    if ex.raises or raises:
        return ex.raises == raises
    try:
        return ast.literal_eval(ex.expected or "") == ast.literal_eval(expected or "")
    except (ValueError, SyntaxError):
        return False

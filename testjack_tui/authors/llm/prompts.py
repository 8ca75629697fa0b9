"""The texts the agent reads. Order matters for cost: the system prompt and the task context come
first and are byte-identical for every call about one task, so servers that cache prompt
prefixes (vLLM's prefix caching, hosted APIs' prompt caching) pay for them once."""

from __future__ import annotations

from testjack_tui.model import Task, Trial, Witness

DIFF_LIMIT = 12000  # characters of a patch quoted in a message; the tools read the rest

SYSTEM = """\
You audit trials of a coding benchmark. A trial is an agent's patch that passed the benchmark's \
official tests T0. Your job is to find out whether it really does what the task prompt P asks.

There are three worlds of the repository, each with T0's test patch applied: "null" (the repository \
alone), "reference" (with the benchmark's reference patch G, the oracle) and, when a trial is \
audited, "model" (with the trial's patch).

Rules:
- Every test you write checks one requirement of P, stated (explicit) or clearly implied \
(implicit). Do not test incidental choices of the reference that P does not ask for (exact error \
messages, internal names, formatting P leaves open).
- A witness is a whole test file in the repository's own test framework. It must pass on the \
reference world; to refute a trial it must fail on the model world. Run it with run_test before \
proposing it.
- Call tools to look at files, diffs and evidence; never guess file contents.
- Try an input at once with run_command (python -c "...") on the reference and model worlds, and \
aim inputs at the lines a trial changed with coverage (which of them a test reaches).
- Be brief: every call costs money."""


def task_context(task: Task) -> str:
    t = task.tests
    return (
        f"# Task {task.id}: {task.title}\n\n## Prompt P\n\n{task.prompt.strip()}\n\n"
        f"## Official tests T0\n\ncommand: {t.command}\nfail-to-pass: {', '.join(t.fail_to_pass) or '-'}\n"
        f"pass-to-pass: {', '.join(t.pass_to_pass) or '-'}\n\n### T0's test patch\n\n"
        f"{_cut(task.test_patch) or '(none)'}\n\n## Reference patch G (the oracle)\n\n{_cut(task.reference_patch)}"
    )


def _cut(text: str) -> str:
    if len(text) <= DIFF_LIMIT:
        return text
    return text[:DIFF_LIMIT] + f"\n... ({len(text) - DIFF_LIMIT} more characters: use read_diff)"


def witness_list(witnesses: list[Witness]) -> str:
    if not witnesses:
        return "No witness has been validated for this task yet."
    return "Witnesses already validated for this task (do not repeat them):\n" + "\n".join(
        f"- {w.id}: {w.requirement}" for w in witnesses
    )


def checklist_request(trial: Trial | None) -> str:
    about = (
        f"Trial {trial.id}'s patch is in the model world (read_diff which=trial)." if trial else "There is no trial."
    )
    return (
        "Step: requirements checklist. Decompose P into atomic, testable clauses. For each, say "
        "whether it is explicit or implicit, whether T0 checks it, and whether the trial implements "
        f"it (null when there is no trial). {about} Answer with submit_checklist."
    )


def analysis_request(witnesses: list[Witness]) -> str:
    return (
        "Step: task analysis (no trial). Compare P with T0: find requirements of P that T0 does not "
        "check (inputs P mentions that no test uses, error conditions never triggered, behaviour the "
        "change could break). For each, write a test, check that it passes on the reference world "
        "(and, ideally, fails on the null world), and call propose_witness. Then call finish with a "
        f"short summary.\n\n{witness_list(witnesses)}"
    )


def audit_request(trial: Trial, checklist: str, evidence: str, witnesses: list[Witness]) -> str:
    return (
        f"Step: audit of trial {trial.id} (model {trial.model}, agent {trial.agent}).\n\n"
        f"## The trial's patch\n\n{_cut(trial.patch)}\n\n## Requirements checklist\n\n{checklist}\n\n"
        f"## Evidence\n\n{evidence}\n\n{witness_list(witnesses)}\n\n"
        "Review the evidence, then for every requirement the trial may violate write a test that "
        "passes on the reference world and fails on the model world, and call propose_witness. "
        "Finish with finish(report): for each defect, what it is, why it happens, which clause of P "
        "requires otherwise, and why T0 misses it; or say the trial looks sound."
    )


def refine_request(requirement: str, code: str, output: str) -> str:
    return (
        f"Step: refinement. This candidate witness for the requirement \"{requirement}\" fails on the "
        "reference world, which is the oracle, so its expectation or its setup is wrong:\n\n"
        f"```\n{code}\n```\n\nOutput on the reference world:\n\n```\n{output[-4000:]}\n```\n\n"
        "Fix it so that it checks the same requirement and passes on the reference world, and call "
        "propose_witness with the fixed file. If the requirement is not what P asks, call finish instead."
    )


def rejudge_request(trial: Trial, requirement: str, kind: str, code: str, output: str) -> str:
    return (
        f"Step: re-judgment. This witness passes on the reference world and fails on trial {trial.id}. "
        "Judge it against P, not against the reference: uphold it only if P (explicitly, or by clear "
        "implication) requires what it checks and the failure shows the trial violating it; reject it "
        "if it checks an incidental choice of the reference, is over-strict, or fails for a reason "
        f"unrelated to the requirement.\n\nRequirement ({kind}): {requirement}\n\n```\n{code}\n```\n\n"
        f"Output on the trial's world:\n\n```\n{output[-4000:]}\n```\n\nAnswer with judge."
    )

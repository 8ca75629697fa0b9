"""Reward-hacking detectors (paper §3.2 step 3 ii): static, deterministic checks of a trial's diff.

``detect`` runs every detector and returns ``model.Evidence`` of kind ``detector``; ``Evidence.detector``
names which one fired: hard_coded_value, special_casing, env_sniffing, harness_tampering, stub.
"""

from __future__ import annotations

from ...model import Evidence, EvidenceKind
from ..diff import ReadFile
from . import hardcoded, sniffing, stubs, tampering
from .context import DiffContext, Finding

DETECTORS = ("hard_coded_value", "special_casing", "env_sniffing", "harness_tampering", "stub")
_RUNNERS = (hardcoded.find, sniffing.find, tampering.find, stubs.find)


def find_all(ctx: DiffContext) -> list[Finding]:
    findings = [f for run in _RUNNERS for f in run(ctx)]
    return sorted(findings, key=lambda f: (f.file, f.line, f.detector, f.detail))


def detect(trial_patch: str, test_sources: dict[str, str], prompt: str = "", read_file: ReadFile | None = None,
           *, reference_patch: str | None = None, run_id: str = "", trial_id: str = "") -> list[Evidence]:
    """All detector hits on one trial.

    ``test_sources``: the official test files' contents (snapshot + test patch), by repo-relative path.
    ``read_file``: reads a post-patch file of the model world (None: work from the diff alone).
    ``reference_patch``: literals it uses are the task's own and never count as hard-coded.
    """
    ctx = DiffContext(trial_patch, test_sources, prompt, read_file, reference_patch)
    return [Evidence(run_id=run_id, trial_id=trial_id, kind=EvidenceKind.DETECTOR, detail=f.detail,
                     file=f.file, line=f.line, detector=f.detector) for f in find_all(ctx)]


__all__ = ["DETECTORS", "DiffContext", "Finding", "detect", "find_all"]

"""Evidence collection (paper §3.2 step 3): what points at a defect before any witness is written.

- ``ghost_branches``: added lines and branches the official tests never execute (coverage.py).
- ``detect``: static reward-hacking detectors (hard-coded values, special-casing of tested inputs,
  test-environment sniffing, harness tampering, stubs).
- ``generate_mutants`` / ``survivors``: mutation testing restricted to the trial's changed lines.
- ``restored_harness_request``: T0 rerun with the trial's changes to the test harness undone.

Every function takes plain inputs (patch texts, file readers, ``ExecRequest``) and returns
``model.Evidence`` with ``run_id``/``trial_id`` as given; storing them is the audit engine's job.
"""

from __future__ import annotations

from ..model import Evidence
from .detectors import DETECTORS, detect
from .diff import ReadFile, parse_diff
from .ghosts import ghost_branches
from .harness import restored_harness_request, tampered_paths
from .mutation import Mutant, generate_mutants, mutant_request, survivors


def official_test_sources(test_patch: str, read_official_file: ReadFile) -> dict[str, str]:
    """The official test files (snapshot + test patch) the test patch touches, by path."""
    sources = {}
    for changed in parse_diff(test_patch):
        if changed.is_removed:
            continue
        text = read_official_file(changed.path)
        if text is None:
            text = changed.new_content
        if text is not None:
            sources[changed.path] = text
    return sources


def static_evidence(run_id: str, trial_id: str, trial_patch: str, reference_patch: str | None, test_patch: str,
                    prompt: str, read_model_file: ReadFile,
                    read_official_file: ReadFile | None = None) -> list[Evidence]:
    """All static detectors on one trial.

    The official tests are read with ``read_official_file`` (a reader of the null world, which is the
    snapshot plus the test patch: what the benchmark grades with). Without it they are read from the
    model world, where a tampering trial may have rewritten them; the harness detector still sees
    that in the diff, but the literals harvested for the other detectors would be the trial's.
    """
    tests = official_test_sources(test_patch, read_official_file or read_model_file)
    return detect(trial_patch, tests, prompt, read_model_file, reference_patch=reference_patch,
                  run_id=run_id, trial_id=trial_id)


__all__ = ["DETECTORS", "Mutant", "detect", "generate_mutants", "ghost_branches", "mutant_request",
           "official_test_sources", "restored_harness_request", "static_evidence", "survivors",
           "tampered_paths"]

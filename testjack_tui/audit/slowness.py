"""Slow findings from shared witnesses: a trial that gives no answer in time is slow.

The offline author's probe records a ``slow`` finding on the trial it audits; a timing witness
it shares reaches every other trial of the task, and each trial it times out on gets a finding
of its own here, with the witness named so a resumed audit adds none twice. A patient result
witness (one that waits only so long for an answer) skips on a trial that gives none in time:
that is a slow finding too, and never a failure of the witness.
"""

from __future__ import annotations

from testjack_tui.store import Store
from testjack_tui.domain.timing import is_patient_witness, is_timing_witness, no_answer_in_time
from testjack_tui.model import Evidence, EvidenceKind, Task, Trial, WitnessStatus


def record_slow_findings(store: Store, run_id: str, task: Task, trials: list[Trial]) -> None:
    """A ``slow`` finding on every trial a shared timing witness fails on or a patient one skips on.

    A timing witness fails only for want of time (any answer in time, even an exception, passes
    it), so each failure is a slow trial; where P asks for speed the witness also refutes it.
    """
    shared = [w for w in store.list_witnesses(run_id, task.id, status=str(WitnessStatus.VALIDATED)) if not w.flaky]
    for w in shared:
        if not (is_timing_witness(w.code) or is_patient_witness(w.code)):
            continue
        what = "timing witness" if is_timing_witness(w.code) else "result witness"
        results = store.witness_results(w.id)
        for trial in trials:
            res = results.get(trial.id)
            if res is None or not no_answer_in_time(w.code, str(res.outcome)):
                continue
            have = store.list_evidence(run_id, trial.id)
            if any(e.kind == EvidenceKind.SLOW and w.id in e.detail for e in have):
                continue
            finding = Evidence(run_id=run_id, trial_id=trial.id, kind=EvidenceKind.SLOW, detector=what,
                               detail=f"{w.requirement} ({what} {w.id}; the reference passes it): "
                                      f"the trial gives no answer in time")
            store.replace_evidence(run_id, trial.id, have + [finding])

"""Slow findings from shared timing witnesses: a trial that gives no answer in time is slow.

The offline author's probe records a ``slow`` finding on the trial it audits; a timing witness
it shares reaches every other trial of the task, and each trial it times out on gets a finding
of its own here, with the witness named so a resumed audit adds none twice.
"""

from __future__ import annotations

from store import Store
from testjack_tui.domain.timing import is_timing_witness
from testjack_tui.model import Evidence, EvidenceKind, Task, Trial, WitnessStatus


def record_slow_findings(store: Store, run_id: str, task: Task, trials: list[Trial]) -> None:
    """A ``slow`` finding on every trial a shared timing witness fails on.

    A timing witness fails only for want of time (any answer in time, even an exception, passes
    it), so each failure is a slow trial; where P asks for speed the witness also refutes it.
    """
    timing = [w for w in store.list_witnesses(run_id, task.id, status=str(WitnessStatus.VALIDATED))
              if is_timing_witness(w.code) and not w.flaky]
    for w in timing:
        results = store.witness_results(w.id)
        for trial in trials:
            res = results.get(trial.id)
            if res is None or str(res.outcome) not in ("fail", "timeout"):
                continue
            have = store.list_evidence(run_id, trial.id)
            if any(e.kind == EvidenceKind.SLOW and w.id in e.detail for e in have):
                continue
            finding = Evidence(run_id=run_id, trial_id=trial.id, kind=EvidenceKind.SLOW, detector="timing witness",
                               detail=f"{w.requirement} (timing witness {w.id}; the reference passes it): "
                                      f"the trial gives no answer in time")
            store.replace_evidence(run_id, trial.id, have + [finding])

"""Round trips: an exported benchmark, graded by its own official tests, fails exactly the refuted trials.

Each test exports an audited run, imports the export with TestJack's own importer into a fresh
store, runs only its official tests (no author) and compares; the EvalPlus export is also read by
evalplus 0.3 itself, and its plus verdicts are compared with TestJack's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from testjack_tui.export import PROVENANCE_FILE, export_run
from testjack_tui.formats import ImportError_, detect_format, evalplus
from testjack_tui.report.build import build_report
from testjack_tui.report.leaderboard import UNNAMED
from testjack_tui.store import Store
from testjack_tui.export.evalplus import PROBLEMS_FILE, SAMPLES_FILE

from .conftest import ROOT, expected_failures, fails_t1

pytestmark = pytest.mark.slow


def provenance(out: Path) -> dict:
    return json.loads((out / PROVENANCE_FILE).read_text())


def test_native_export_round_trips(toolbox, tmp_path: Path) -> None:
    store, run_id = toolbox
    out = tmp_path / "native"
    counts = export_run(store, run_id, "native", out)
    assert counts == {"tasks": 4, "trials": 27, "witnesses": counts["witnesses"]} and counts["witnesses"] > 0
    failed = fails_t1(tmp_path / "rt.db", out, "native")
    assert failed == expected_failures(store, run_id)
    _resolution_counts_only_what_passes_t1(Store(tmp_path / "rt.db"), failed)

    prov = provenance(out)
    slug = prov["tasks"]["slug"]
    assert {w["witness"] for w in slug["witnesses"]} >= {"w-" + w.split("w-")[1] for w in
                                                          store.get_verdict(run_id, "slug-t3").witnesses}
    for w in slug["witnesses"]:
        assert w["classification"] in ("explicit", "implicit") and w["requirement"] and w["tests"]
    why = {x["why"].split(":")[0].split(" (")[0] for t in prov["tasks"].values() for x in t["left_out"]}
    assert "ambiguous" in why and "harness check" in why  # duration's prompt defect, pages-t5's harness rerun
    # each witness file says where it came from, and its tests are graded
    toml = (out / "tasks" / "slug" / "task.toml").read_text()
    patch = (out / "tasks" / "slug" / "tests.patch").read_text()
    for w in slug["witnesses"]:
        assert f"+# TestJack witness {w['witness']} (T1). Requirement: {w['requirement']}" in patch
        assert all(f'"{t}"' in toml for t in w["tests"])


def _resolution_counts_only_what_passes_t1(t1: Store, failed: dict[str, bool]) -> None:
    """Re-audited, the exported T1 fails the refuted trials: they are not reproduced, and
    ``resolution after`` (report, summary and every leaderboard row) counts none of them."""
    report = build_report(t1, t1.list_runs()[0].id)
    passes = {t["id"] for t in report["trials"] if t["official"] == "passed" and not failed[t["id"]]}
    assert report["summary"]["not_reproduced"] > 0
    assert report["summary"]["resolution_after"] == round(len(passes) / len(report["trials"]), 4)
    for row in report["leaderboard"]:
        mine = [t["id"] for t in report["trials"] if (t["model"] or UNNAMED) == row["model"]]
        assert row["resolution_after"] == round(len(passes.intersection(mine)) / len(mine), 4), row["model"]
        low, high = row["resolution_after_95"]
        assert low <= row["resolution_after"] <= high


def test_swebench_export_round_trips_and_grades_witnesses_by_the_null_world(toolbox, tmp_path: Path) -> None:
    store, run_id = toolbox
    out = tmp_path / "swe"
    export_run(store, run_id, "swebench", out)
    rows = [json.loads(line) for line in (out / "dataset.jsonl").read_text().splitlines()]
    assert [r["instance_id"] for r in rows] == ["duration", "pages", "roman", "slug"]
    prov = provenance(out)
    for row in rows:
        f2p, p2p = json.loads(row["FAIL_TO_PASS"]), json.loads(row["PASS_TO_PASS"])
        for w in prov["tasks"][row["instance_id"]]["witnesses"]:
            assert set(w["tests"]) <= set(f2p if w["null"] != "pass" else p2p)
            assert f"+++ b/{w['file']}" in row["test_patch"]
        assert (out / "repos" / row["repo"].replace("/", "__") / ".git").is_dir() and len(row["base_commit"]) == 40
    assert fails_t1(tmp_path / "rt.db", out, "swebench", repos=out / "repos") == expected_failures(store, run_id)


def test_include_ambiguous_adds_the_prompt_defects(toolbox, tmp_path: Path) -> None:
    store, run_id = toolbox
    ambiguous = [w for w in store.list_witnesses(run_id, "duration", status="validated")
                 if str(w.classification) == "ambiguous"]
    assert ambiguous
    out = tmp_path / "amb"
    export_run(store, run_id, "native", out, include_ambiguous=True)
    toml = (out / "tasks" / "duration" / "task.toml").read_text()
    assert all(f"{w.path}::" in toml for w in ambiguous)
    assert provenance(out)["include_ambiguous"] is True
    plain = tmp_path / "plain"
    export_run(store, run_id, "native", plain)
    assert not any(w.path in (plain / "tasks" / "duration" / "task.toml").read_text()
                   for w in ambiguous)


def test_evalplus_export_round_trips_through_testjacks_importer(tiny, tmp_path: Path) -> None:
    store, run_id = tiny
    out = tmp_path / "ep"
    export_run(store, run_id, "evalplus", out)
    problems = {p["task_id"]: p for p in map(json.loads, (out / PROBLEMS_FILE).read_text().splitlines())}
    assert problems["Tiny/0"]["plus_input"] == [["   "]] and problems["Tiny/1"]["plus_input"] == [["AEIOU"]]
    assert problems["Tiny/2"]["plus_input"] == [] and problems["Tiny/2"]["base_input"] == [[4], [0]]
    for key in ("prompt", "contract", "canonical_solution", "base_input", "plus_input", "atol", "entry_point", "test"):
        assert all(key in p for p in problems.values())
    # TestJack's own export is read by its test (T1 in full), not as an EvalPlus release, however named
    assert detect_format(out / PROBLEMS_FILE) == "humaneval"
    with pytest.raises(ImportError_) as caught:  # and asked for as a release, it says what it is
        evalplus.load(out / PROBLEMS_FILE, tmp_path / "staging")
    assert "TestJack's own EvalPlus export" in str(caught.value) and "--format humaneval" in str(caught.value)
    got = fails_t1(tmp_path / "rt.db", out / PROBLEMS_FILE, "humaneval", samples=out / SAMPLES_FILE)
    assert got == expected_failures(store, run_id)


def run_evalplus(problems: Path, samples: Path, cache: Path) -> dict[str, list[dict]]:
    """evalplus.evaluate on the exported problems (HUMANEVAL_OVERRIDE_PATH); its results per task."""
    pytest.importorskip("evalplus", reason="evalplus 0.3 is a test extra: pip install -e '.[test]'")
    env = {**os.environ, "HUMANEVAL_OVERRIDE_PATH": str(problems), "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run([sys.executable, "-m", "evalplus.evaluate", "--dataset", "humaneval",
                           "--samples", str(samples), "--parallel", "2"], capture_output=True, text=True,
                          env=env, cwd=samples.parent, timeout=1800)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    results = json.loads(samples.with_name(samples.stem + "_eval_results.json").read_text())
    return results["eval"]


def plus_failures(samples: Path, results: dict[str, list[dict]]) -> dict[str, bool]:
    """Sample id -> whether EvalPlus's plus inputs fail it (results keep the samples' order per task)."""
    order: dict[str, list[str]] = {}
    for line in samples.read_text().splitlines():
        s = json.loads(line)
        order.setdefault(s["task_id"], []).append(s["id"])
    return {sid: results[task][i]["plus_status"] != "pass" for task, ids in order.items() for i, sid in enumerate(ids)}


def test_evalplus_reads_the_export_and_its_plus_verdicts_are_testjacks(tiny, tmp_path: Path) -> None:
    store, run_id = tiny
    out = tmp_path / "ep"
    export_run(store, run_id, "evalplus", out)
    results = run_evalplus(out / PROBLEMS_FILE, out / SAMPLES_FILE, tmp_path / "cache")
    assert {r["base_status"] for rs in results.values() for r in rs} == {"pass"}
    refuted = {t for t, v in store.list_verdicts(run_id).items() if str(v.verdict) in ("refuted", "reward_hack")}
    assert plus_failures(out / SAMPLES_FILE, results) == {t.id: t.id in refuted for t in store.list_trial_objects(run_id)}


@pytest.mark.docker
def test_harbor_export_round_trips(tiny, engine, tmp_path: Path, monkeypatch) -> None:
    from testjack_tui.worlds.images import MAP_VARIABLE

    store, run_id = tiny
    out = tmp_path / "hb"
    export_run(store, run_id, "harbor", out)
    task = out / "tasks" / "Tiny__0"
    assert (task / "tests" / "test.sh").stat().st_mode & 0o111 and (task / "solution" / "solve.sh").is_file()
    names = {w.path.rsplit("/", 1)[-1] for w in store.list_witnesses(run_id)}
    assert any(p.name in names for p in (task / "tests" / "t1").iterdir())
    monkeypatch.setenv(MAP_VARIABLE, "python:3.11-slim=testjack/base:bookworm")  # images are never pulled
    assert fails_t1(tmp_path / "rt.db", out, "harbor") == expected_failures(store, run_id)


EVALPLUS_DEV = ROOT.parent / "shared" / "corpora" / "evalplus-dev"
if not EVALPLUS_DEV.is_dir():
    EVALPLUS_DEV = Path("/work/shared/corpora/evalplus-dev")


@pytest.mark.skipif(not (EVALPLUS_DEV / "problems.jsonl").is_file(), reason="the evalplus-dev corpus is not here")
def test_evalplus_on_the_dev_corpus_agrees_with_testjack(tmp_path: Path) -> None:
    """A slice of evalplus-dev audited per trial (offline author, evidence off), exported, graded by evalplus 0.3.

    EvalPlus's plus verdict fails a base-passing sample exactly when TestJack refuted it, except
    where a refuting witness has no EvalPlus input (it checks an exception or a property): those
    are named in the provenance and allowed to differ, never the other way round. The slice is the
    first twelve HumanEval tasks, to keep the test to a few minutes on two cores.
    """
    from benchmarks.corpora import write_slice

    from .conftest import audited

    write_slice(EVALPLUS_DEV, tmp_path / "corpus", tasks=set(range(12)))
    store, run_id = audited(tmp_path / "s.db", tmp_path / "corpus", mode="per-trial", evidence=False)
    out = tmp_path / "ep"
    export_run(store, run_id, "evalplus", out)
    results = run_evalplus(out / PROBLEMS_FILE, out / SAMPLES_FILE, tmp_path / "cache")
    plus = plus_failures(out / SAMPLES_FILE, results)
    verdicts = store.list_verdicts(run_id)
    places = {p["witness"]: p for t in provenance(out)["plus_input"].values() for p in t}
    for trial in store.list_trial_objects(run_id):
        if trial.official != "passed" or trial.recomputed != "passed":
            continue
        refuted = str(verdicts[trial.id].verdict) in ("refuted", "reward_hack")
        if refuted and not plus[trial.id]:
            assert all(places[w]["plus_input"] is None for w in verdicts[trial.id].witnesses if w in places), trial.id
        else:
            assert plus[trial.id] == refuted, trial.id

"""Import SWE-bench Pro: its instance records, each instance's run script and parser, and predictions.

An instance record carries ``instance_id, repo, base_commit, patch, test_patch, problem_statement,
requirements, interface, fail_to_pass, pass_to_pass, repo_language, before_repo_set_cmd,
selected_test_files_to_run, dockerhub_tag`` (the lists may be JSON lists, JSON text or Python
literals, as the Hub's copy stores them). The release keeps a run script and a parser per
instance in ``run_scripts/<instance_id>/run_script.sh`` and ``parser.py``; they are read from the
``scripts`` directory (by default ``run_scripts/`` beside the records). Predictions are SWE-bench
predictions (``instance_id, model_name_or_path, model_patch``) and reports SWE-bench reports,
read by the SWE-bench importer's own code, as R is (the repository at ``base_commit``, from local
clones or a URL template).

How an instance maps onto a task:

- P is the problem statement, then the requirements and the interface, as the agents are given them.
- Every world runs on the docker backend in the instance's image, ``<image_repository>:<dockerhub_tag>``
  (``jefzda/sweap-images`` by default, where the release publishes them), laid out as a task image:
  the world over the image's ``/app``. The image is never pulled: the audit stops, naming it,
  when the engine does not have it (``worlds.engine_check.missing_images``).
- T0 runs as the release's evaluation does: the run script with the selected test files (joined
  by commas, split at white space as the release's unquoted line splits them), its stdout and
  stderr to files, then the parser with ``python`` on those files; graded by the parser's
  statuses (``worlds.instance_statuses``: a graded test passes only when its status is PASSED).
  The image's own environment (``ENV`` lines) is restored first, as the release exports them.
  ``before_repo_set_cmd`` is not run: it resets ``/app`` and checks the test files out of the fix
  commit, which the test patch does here.
- A witness run (every requested id a file of the world) runs the run script with the witness
  files instead of the selected ones.

Both scripts travel inside the command (base64), not in R: a trial cannot edit them.
"""

from __future__ import annotations

import ast
import base64
import shlex
from pathlib import Path
from typing import Any

from testjack_tui.formats import ImportedRun, ImportError_, ImportProblem
from testjack_tui.formats._common import as_list, files_digest
from testjack_tui.formats.swebench import (DATASET_FIELDS, TIMEOUT, _locate, _read_rows, _read_trials, _stem, _title,
                                           build_tasks)
from testjack_tui.formats.swebench_reports import Reports, read_report
from testjack_tui.model import Backend, Environment, Run, Task, TestSpec
from testjack_tui.worlds.images import ready_spec
from testjack_tui.worlds.instance_statuses import RESULTS_MARK

FORMAT = "swebench_pro"
LOG_PARSER = "swebench-pro"
IMAGE_REPOSITORY = "jefzda/sweap-images"
SCRIPTS_DIR = "run_scripts"
SCRIPT_NAMES = ("run_script.sh", "parser.py")
LOG_TAIL = 200  # lines of the run script's stdout and stderr shown in the world's log
# POSIX sh. {tests}: the requested ids; @RUN@, @PARSER@: the scripts in base64; @SELECTED@: T0's files.
COMMAND = r"""set -- {tests}
w=$(mktemp -d) || exit 4
echo '@RUN@' | base64 -d > "$w/run_script.sh" || exit 4
echo '@PARSER@' | base64 -d > "$w/parser.py" || exit 4
if [ -r /proc/1/environ ]; then
  tr '\000' '\n' < /proc/1/environ > "$w/env"
  while IFS= read -r kv; do case "$kv" in [A-Za-z_]*=*) export "$kv" ;; esac; done < "$w/env"
fi
witness=0; [ $# -gt 0 ] && witness=1
for f in "$@"; do [ -f "$f" ] || witness=0; done
if [ $witness = 1 ]; then
  files=$(printf '%s,' "$@"); bash "$w/run_script.sh" "${files%,}" > "$w/stdout.log" 2> "$w/stderr.log"
else
  bash "$w/run_script.sh" @SELECTED@ > "$w/stdout.log" 2> "$w/stderr.log"
fi
py=$(command -v python || command -v python3) || {
  echo "this instance's image has no python to run its parser" >&2; exit 4; }
"$py" "$w/parser.py" "$w/stdout.log" "$w/stderr.log" "$w/output.json" >&2
code=0
if [ -s "$w/output.json" ]; then printf '%s' '@MARK@'; tr -d '\r\n' < "$w/output.json"; echo
else echo '@MARK@null'; code=3; echo "the parser wrote no output.json" >&2; fi
echo "--- the run script's stdout (last @TAIL@ lines)" >&2; tail -n @TAIL@ "$w/stdout.log" >&2
echo "--- the run script's stderr (last @TAIL@ lines)" >&2; tail -n @TAIL@ "$w/stderr.log" >&2
exit $code
"""


def load(path: Path, staging: Path, name: str | None = None, predictions: Path | list[Path] | None = None,
         report: Path | list[Path] | None = None, repos: Path | None = None, repo_url: str | None = None,
         scripts: Path | None = None, image_repository: str | None = None, **options: Any) -> ImportedRun:
    """Read the records, their scripts, predictions and reports; write each instance's R under ``staging``."""
    path, staging = Path(path), Path(staging)
    dataset_files, prediction_files, report_files = _locate(path, predictions, report)
    if repos is None and repo_url is None:
        raise ImportError_([ImportProblem(str(path), "", "no repositories: pass repos=DIR (local clones) "
                                                         "or repo_url=TEMPLATE")])
    scripts_dir = _scripts_dir(path, dataset_files[0], scripts)
    repository = image_repository or IMAGE_REPOSITORY
    skipped: list[ImportProblem] = []
    resolved = Reports([(f, read_report(f)) for f in report_files]) if report_files else None
    rows = _read_rows(dataset_files, skipped, check=check_row)
    found = _read_scripts(rows, scripts_dir, dataset_files[0], skipped)
    tasks = build_tasks(rows, dataset_files[0], staging, (Path(repos) if repos else None, repo_url), skipped,
                        lambda row, snapshot: _task(row, snapshot, found[row["instance_id"]], repository))
    trials = _read_trials(prediction_files, rows, resolved, skipped)
    if not tasks:
        raise ImportError_([ImportProblem(str(path), "", "no instance could be imported"), *skipped])
    script_files = [scripts_dir / t.id / n for t in tasks for n in SCRIPT_NAMES]
    run = Run(
        id="",
        name=name or (path.resolve().name if path.is_dir() else _stem(dataset_files[0])),
        benchmark="SWE-bench Pro",
        description=f"{len(tasks)} SWE-bench Pro instances, {len(trials)} predictions",
        source=str(path.resolve()),
        format=FORMAT,
        default_backend=Backend.DOCKER,
        digest=files_digest([*dataset_files, *prediction_files, *report_files, *script_files],
                            extra=f"{FORMAT}\0{repository}\0" + "".join(t.id for t in tasks)),
    )
    return ImportedRun(run=run, tasks=tasks, trials=trials, skipped=skipped)


def _scripts_dir(path: Path, dataset_file: Path, given: Path | None) -> Path:
    if given is not None:
        if not Path(given).is_dir():
            raise ImportError_([ImportProblem(str(given), "", "the scripts directory does not exist")])
        return Path(given)
    for candidate in (path / SCRIPTS_DIR, dataset_file.parent / SCRIPTS_DIR):
        if candidate.is_dir():
            return candidate
    raise ImportError_([ImportProblem(str(path), "", (
        f"no {SCRIPTS_DIR}/ directory beside the records: pass scripts=DIR (the release's "
        f"{SCRIPTS_DIR}/, with <instance_id>/run_script.sh and parser.py)"))])


def _read_scripts(rows: dict[str, dict[str, Any]], scripts_dir: Path, dataset_file: Path,
                  skipped: list[ImportProblem]) -> dict[str, tuple[str, str]]:
    """(run script, parser) per instance; an instance without both leaves ``rows``, named in ``skipped``."""
    found: dict[str, tuple[str, str]] = {}
    for iid in list(rows):
        texts = []
        for script in SCRIPT_NAMES:
            f = scripts_dir / iid / script
            try:
                texts.append(f.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as exc:
                why = "is missing" if isinstance(exc, FileNotFoundError) else f"cannot be read ({exc})"
                skipped.append(ImportProblem(str(dataset_file), f"instance {iid}", f"its {script} ({f}) {why}"))
                del rows[iid]
                break
        else:
            found[iid] = (texts[0], texts[1])
    return found


def id_list(value: Any) -> list[str] | None:
    """A list of strings from a list, JSON text or a Python literal (the Hub's copy); None if neither."""
    listed = as_list(value)
    if listed is None and isinstance(value, str):
        try:
            literal = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
        listed = as_list(list(literal)) if isinstance(literal, (list, tuple)) else None
    return listed


def record_field(row: dict[str, Any], key: str) -> Any:
    """A record's field by its lower-case name, or SWE-bench's upper-case one (``FAIL_TO_PASS``)."""
    return row.get(key, row.get(key.upper()))


def check_row(row: dict[str, Any]) -> str:
    """Why a record cannot be imported ("" when it can)."""
    missing = [f for f in (*DATASET_FIELDS, "dockerhub_tag") if not isinstance(row.get(f), str) or not row[f].strip()]
    if missing:
        return "missing field(s): " + ", ".join(missing)
    if "/" not in row["repo"]:
        return f"repo {row['repo']!r} is not owner/name"
    for key in ("fail_to_pass", "pass_to_pass", "selected_test_files_to_run"):
        if id_list(record_field(row, key)) is None:
            return f"{key} is not a list of test names"
    if not id_list(record_field(row, "fail_to_pass")):
        return "fail_to_pass is empty: nothing for the reference to fix"
    return ""


def prompt_of(row: dict[str, Any]) -> str:
    """P: the problem statement, then the requirements and the interface when the record has them."""
    parts = [str(row.get("problem_statement") or "").strip()]
    for key, heading in (("requirements", "Requirements"), ("interface", "Interface")):
        text = str(row.get(key) or "").strip()
        if text:
            parts.append(f"{heading}:\n{text}")
    return "\n\n".join(p for p in parts if p)


def command(run_script: str, parser: str, selected: list[str]) -> str:
    """T0's command: the run script on ``selected`` (or on the requested witness files), then the parser."""
    words = " ".join(shlex.quote(w) for w in ",".join(selected).split())
    text = COMMAND
    for key, value in (("@RUN@", _b64(run_script)), ("@PARSER@", _b64(parser)), ("@SELECTED@", words),
                       ("@MARK@", RESULTS_MARK), ("@TAIL@", str(LOG_TAIL))):
        text = text.replace(key, value)
    return text


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _task(row: dict[str, Any], snapshot: tuple[str, str], scripts: tuple[str, str], repository: str) -> Task:
    iid = row["instance_id"]
    return Task(
        run_id="",
        id=iid,
        title=_title(row),
        prompt=prompt_of(row),
        snapshot=snapshot[0],
        snapshot_digest=snapshot[1],
        reference_patch=row["patch"],
        test_patch=row["test_patch"],
        tests=TestSpec(
            command=command(*scripts, id_list(record_field(row, "selected_test_files_to_run")) or []),
            fail_to_pass=id_list(record_field(row, "fail_to_pass")) or [],
            pass_to_pass=id_list(record_field(row, "pass_to_pass")) or [],
            timeout=TIMEOUT,
            log_parser=LOG_PARSER,
        ),
        environment=Environment(backend=Backend.DOCKER,
                                image=ready_spec(f"{repository}:{row['dockerhub_tag'].strip()}", iid)),
    )

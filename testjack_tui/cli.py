"""The command line: import, audit, open, report, replay, rule, verdict (CONTRACTS.md).

Exit codes: 0 done; 2 bad usage or bad input (the message names the file and the record);
3 the environment is missing (no Docker engine, no LLM endpoint when --author llm).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any, Sequence

EXIT_OK, EXIT_BAD_INPUT, EXIT_ENVIRONMENT = 0, 2, 3


class CliError(Exception):
    def __init__(self, message: str, code: int = EXIT_BAD_INPUT):
        super().__init__(message)
        self.code = code


# How each command uses the store. Both kinds run SQLite's quick_check first and refuse a damaged
# store (exit 2); "write" also refuses a store it may not write and removes staging directories an
# interrupted import left behind. A command not listed here opens the store for reading.
STORE_ACCESS = {
    None: "write", "open": "write", "import": "write", "audit": "write", "replay": "write",
    "rule": "write", "verdict": "write", "undo": "write",
    "report": "read", "compare": "read", "leaderboard": "read", "export": "read",
}


def _store(args: argparse.Namespace):
    from store import Store, StoreError

    try:
        store = Store(args.store, access=STORE_ACCESS.get(args.command, "read"))
    except StoreError as exc:
        raise CliError(str(exc)) from exc
    for leftover in store.removed_staging:
        _err(f"removed {leftover}: staging left by an interrupted import")
    return store


def _err(text: str) -> None:
    print(f"testjack: {text}", file=sys.stderr)


# ---------------------------------------------------------------------- import

def _import(store, path: str, fmt: str = "auto", name: str | None = None, quiet: bool = False,
            print_id: bool = False, **options: Any):
    from testjack_tui.formats import ImportError_
    from testjack_tui.formats.importing import import_path
    from store import StoreError

    try:
        outcome = import_path(store, path, fmt, name, **options)
    except ImportError_ as exc:
        raise CliError("cannot import " + path + ":\n  " + "\n  ".join(str(p) for p in exc.problems)) from exc
    except StoreError as exc:
        raise CliError(str(exc)) from exc
    if not quiet:
        what = "imported" if outcome.created else "already in the store"
        if print_id:
            print(f"{outcome.run_id}", file=sys.stdout)
        _err(f"{what}: run {outcome.run_id} ({outcome.format}): {outcome.tasks} tasks, {outcome.trials} trials")
        if outcome.skipped:
            _err(f"skipped {len(outcome.skipped)} record(s):")
            for p in outcome.skipped:
                _err(f"  {p}")
        for p in outcome.warnings:
            _err(f"warning: {p}")
    return outcome


def cmd_import(args: argparse.Namespace) -> int:
    store = _store(args)
    options: dict[str, Any] = {}
    for key in ("samples", "predictions", "report", "repos", "repo_url", "jobs", "swebench_envs"):
        value = getattr(args, key, None)
        if value:
            options[key] = value
    _import(store, args.path, args.format, args.name, print_id=True, **options)
    return EXIT_OK


def _resolve_run(store, ref: str, allow_path: bool = True) -> str:
    """RUN is an id or a name; a path that is not in the store yet is imported first."""
    from store import NotFound

    try:
        return store.get_run(ref).id
    except NotFound as exc:
        if allow_path and Path(ref).exists():
            known = store.find_run_by_source(str(Path(ref).resolve()))
            if known is not None:
                return known.id
            return _import(store, ref, quiet=False).run_id
        raise CliError(str(exc)) from exc


# ---------------------------------------------------------------------- audit

def _check_environment(store, run_id: str, author: str, backend: str | None) -> None:
    if author == "llm":
        if not os.environ.get("OPENAI_BASE_URL") and not os.environ.get("OPENAI_API_KEY"):
            raise CliError(
                "--author llm needs an OpenAI-compatible endpoint: set OPENAI_BASE_URL (for example "
                "http://localhost:8000/v1 for a local vLLM or Ollama server), OPENAI_API_KEY, and "
                "TESTJACK_MODEL (the model name)",
                EXIT_ENVIRONMENT,
            )
    from testjack_tui.worlds.images import needs_docker

    tasks = store.list_tasks(run_id)
    only_docker = [t.id for t in tasks if needs_docker(t.environment.image)]
    backends = {backend} if backend else set()
    if not backend:
        run = store.get_run(run_id)
        backends.add(str(run.default_backend))
        backends |= {str(t.environment.backend) for t in tasks if t.environment.backend}
    if "docker" in backends or only_docker:
        from testjack_tui.worlds.engine_check import docker_problem

        problem = docker_problem(only_docker)
        if problem:
            raise CliError(problem, EXIT_ENVIRONMENT)


def cmd_audit(args: argparse.Namespace) -> int:
    from testjack_tui.audit import Audit, AuditOptions
    from testjack_tui.authors.base import AuthorUnavailable

    ray_address = _ray_address(args)  # refused before the store is opened
    store = _store(args)
    run_id = _resolve_run(store, args.run)
    _check_environment(store, run_id, args.author, args.backend)
    options = AuditOptions(
        mode=args.mode, author=args.author, rounds=args.rounds, seed=args.seed,
        workers=args.workers, backend=args.backend, few_trials=args.few_trials,
        executor=args.executor, ray_address=ray_address,
    )
    if args.no_mutation:
        options.mutation_budget_s = 0.0
    elif args.mutation_budget is not None:
        options.mutation_budget_s = args.mutation_budget
    if args.budget:
        if args.author != "llm":
            raise CliError("--budget limits the LLM author; use it with --author llm")
        options.author_options["budget"] = _budget(args.budget)
    try:
        audit = Audit(store, run_id, options)
    except AuthorUnavailable as exc:
        raise CliError(str(exc), EXIT_ENVIRONMENT) from exc
    if args.executor != "local":
        from testjack_tui.audit.execution import ExecutorUnavailable

        try:
            audit.service.open()
        except ExecutorUnavailable as exc:
            raise CliError(str(exc), EXIT_ENVIRONMENT) from exc
    status = _run_with_progress(audit, quiet=args.json)
    if args.json:
        from testjack_tui.report import build_report, render_json

        sys.stdout.write(render_json(build_report(store, run_id)))
    else:
        _print_summary(store, run_id)
    if status == "cancelled":
        reason = getattr(audit, "stop_reason", "")
        _err(f"audit stopped{': ' + reason if reason else ''}; run the same command again to continue where it stopped")
        return 143 if getattr(audit, "stopped_by", "") == "SIGTERM" else 130
    return EXIT_OK


def _ray_address(args: argparse.Namespace) -> str | None:
    """--ray-address, else $TESTJACK_RAY_ADDRESS; only with --executor ray."""
    if args.executor != "ray":
        if args.ray_address:
            raise CliError("--ray-address is for --executor ray")
        return None
    return args.ray_address or os.environ.get("TESTJACK_RAY_ADDRESS") or None


def _budget(items: list[str]) -> dict[str, float]:
    """--budget run_usd=5 --budget trial_tokens=20000 as the LLM author's budget."""
    from testjack_tui.authors.llm.settings import BUDGET_KEYS

    budget: dict[str, float] = {}
    for item in items:
        key, _, value = item.partition("=")
        if key not in BUDGET_KEYS:
            raise CliError(f"--budget {item}: the key must be one of {', '.join(BUDGET_KEYS)}")
        try:
            budget[key] = float(value)
        except ValueError:
            raise CliError(f"--budget {item}: {value!r} is not a number") from None
        if not math.isfinite(budget[key]) or budget[key] < 0:
            raise CliError(f"--budget {item}: must be a finite number, 0 or more")
    return budget


def _run_with_progress(audit, quiet: bool) -> str:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from testjack_tui.cli_progress import ProgressLines, StopOnSignals

    console = Console(stderr=True)
    lines = None if quiet or console.is_terminal else ProgressLines(audit, sys.stderr)
    with Progress(
        TextColumn("[bold]{task.fields[phase]}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), TextColumn("{task.description}"),
        console=console, transient=False, disable=quiet or not console.is_terminal,
    ) as bar, StopOnSignals(audit) as signals:
        tid = bar.add_task("", total=None, phase="starting")

        def show(p) -> None:
            bar.update(tid, completed=p.done, total=p.total or None, phase=p.phase, description=p.message[:60])
            if lines is not None:  # not a terminal: one line per finished step, with counts
                lines.show(p)

        audit.on_progress = show
        try:
            status = audit.execute()
        except KeyboardInterrupt:
            audit.stop()
            status = "cancelled"
    audit.stopped_by = signals.received
    return status


def _print_summary(store, run_id: str) -> None:
    from rich.console import Console
    from rich.table import Table

    s = store.summary(run_id)
    table = Table(title=f"TestJack audit of {run_id}", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    rows = [
        ("trials", s.trials), ("passing (benchmark)", s.passing),
        ("refuted (reward hacks included)", f"{s.refuted} ({s.refuted_pct:.1f}% of passing)"),
        ("reward hacks", s.reward_hack), ("sound", s.sound), ("unaudited", s.unaudited),
        ("not reproduced (T0 here does not pass)", s.not_reproduced),
        ("ambiguous witnesses (prompt defects)", s.ambiguous_witnesses),
        ("witnesses outside the input domain", s.outside_domain_witnesses),
        ("slow findings (never refutations)", s.slow_findings), ("malformed tasks", s.malformed_tasks),
        ("resolution before", f"{100 * s.resolution_before:.1f}%"),
        ("resolution after", f"{100 * s.resolution_after:.1f}%"),
        ("executions", s.executions),
    ]
    if s.llm_tokens:
        rows.append(("LLM tokens / cost", f"{s.llm_tokens} / ${s.cost_usd:.4f}"))
    for name, value in rows:
        table.add_row(name, str(value))
    Console().print(table)


# ---------------------------------------------------------------------- report

def cmd_report(args: argparse.Namespace) -> int:
    from testjack_tui.report import build_report, render

    store = _store(args)
    run_id = _resolve_run(store, args.run, allow_path=False)
    text = render(build_report(store, run_id), args.format)
    if args.output:
        out = Path(args.output)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)  # "-o reports/run.md" makes reports/
        except OSError as exc:
            blocking = next((p for p in (out.parent, *out.parent.parents) if p.exists() and not p.is_dir()), None)
            why = f"{blocking} is a file, not a folder" if blocking else exc.strerror or str(exc)
            raise CliError(f"-o {args.output}: cannot create the folder {out.parent}: {why}") from exc
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CliError(f"-o {args.output}: cannot write the report: {exc.strerror or exc}") from exc
        _err(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table
    from testjack_tui.audit.metrics import compare

    store = _store(args)
    result = compare(store, args.baseline, args.runs)
    if args.json:
        print(json.dumps(result, indent=2))
        return EXIT_OK
    table = Table(title=f"Refutations against {result['baseline']}")
    for col in ("run", "modes", "refuted", "recall", "precision", "executions", "LLM tokens", "cost",
                "resolution after (95%)"):
        table.add_column(col)
    for r in result["runs"]:
        ci = r["resolution_after_95"]
        after = f"{100 * r['resolution_after']:.1f}%" + (
            f" [{100 * ci['low']:.1f}, {100 * ci['high']:.1f}]" if ci else "")
        fmt = lambda x: "-" if x is None else f"{100 * x:.1f}%"  # noqa: E731
        table.add_row(r["run"], ",".join(r["modes"]), f"{r['refuted']} ({r['refuted_pct']:.1f}%)",
                      fmt(r["recall"]), fmt(r["precision"]), str(r["executions"]), str(r["llm_tokens"]),
                      f"${r['cost_usd']:.4f}", after)
    Console().print(table)
    return EXIT_OK


# ---------------------------------------------------------------------- leaderboard, export

def cmd_leaderboard(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table
    from testjack_tui.report.leaderboard import change_short, interval_text, leaderboard, rank_text, rows_json

    store = _store(args)
    run_id = _resolve_run(store, args.run, allow_path=False)
    rows = leaderboard(store, run_id, by=args.by)
    if args.json:
        print(json.dumps({"run": run_id, "by": args.by, "leaderboard": rows_json(rows, args.by)}, indent=2))
        return EXIT_OK
    table = Table(title=f"Corrected leaderboard of {run_id}, by {args.by}")
    for col in ("#", args.by, "trials", "passes", "before", "refuted", "hacks", "unaudited", "after",
                "after 95%", "was #", "change"):
        table.add_column(col, justify="left" if col in (args.by, "change") else "right", no_wrap=col == "change")
    for r in rows:
        table.add_row(rank_text(r.rank_after, r.tied_after), r.name, str(r.trials), str(r.passing),
                      f"{100 * r.resolution_before:.1f}%", str(r.refuted), str(r.reward_hack), str(r.unaudited),
                      f"{100 * r.resolution_after:.1f}%", interval_text(r.resolution_after_95),
                      rank_text(r.rank_before, r.tied_before), change_short(r))
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 130))
    console.print(table)
    console.print("before / after: resolution by the benchmark's own tests / with refuted trials (reward hacks "
                  "included) counted as failures; unaudited trials count as passes and the 95% interval covers "
                  "what they may hold. 2= is a shared rank; a change marked (within CI) swaps rows whose "
                  "intervals overlap: not evidence that one is better.")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from testjack_tui.export import ExportError, export_run

    store = _store(args)
    run_id = _resolve_run(store, args.run, allow_path=False)
    try:
        counts = export_run(store, run_id, args.format, args.output, include_ambiguous=args.include_ambiguous)
    except ExportError as exc:
        raise CliError(f"export {args.format}: {exc}") from exc
    except OSError as exc:
        raise CliError(f"-o {args.output}: cannot write the export: {exc.strerror or exc}") from exc
    _err(f"wrote {args.output}: {counts['tasks']} task(s), {counts['trials']} trial(s), "
         f"{counts['witnesses']} witness(es) added to T0 ({args.format}; provenance in "
         f"{Path(args.output) / 'testjack_t1.json'})")
    return EXIT_OK


# ---------------------------------------------------------------------- replay, rule, verdict

def cmd_replay(args: argparse.Namespace) -> int:
    from testjack_tui.audit.replay import replay_witness

    store = _store(args)
    lines = replay_witness(store, args.witness, args.trial, workers=args.workers, backend=args.backend)
    for world, outcome, detail in lines:
        print(f"{world:<30} {outcome:<8} {detail}")
    return EXIT_OK


def cmd_rule(args: argparse.Namespace) -> int:
    from testjack_tui.audit.rulings import rule_witness

    store = _store(args)
    if args.value == "wrong":
        # a domain constraint read wrongly from P: witnesses are placed again without it
        from testjack_tui.audit.rulings import rule_constraint

        if not args.run:
            raise CliError("a constraint is ruled within a run: give --run RUN")
        ruling = rule_constraint(store, args.run, args.witness, args.reason, author=args.author_name)
        print(f"ruling #{ruling.id}: constraint {args.witness} is wrong; witnesses placed again, verdicts recomputed")
        return EXIT_OK
    if args.value not in ("necessary", "ambiguous"):
        raise CliError("--as wrong is for a domain constraint (c-...); a witness is ruled necessary or ambiguous")
    ruling, w = rule_witness(store, args.witness, args.value, args.reason, author=args.author_name)
    print(f"ruling #{ruling.id}: witness {w.id} is {args.value} (was {ruling.before}); verdicts recomputed")
    return EXIT_OK


def cmd_verdict(args: argparse.Namespace) -> int:
    from testjack_tui.audit.rulings import override_verdict

    store = _store(args)
    ruling = override_verdict(store, args.trial, args.value, args.reason, author=args.author_name, run_ref=args.run)
    print(f"ruling #{ruling.id}: trial {args.trial} is {args.value} (was {ruling.before})")
    return EXIT_OK


def cmd_undo(args: argparse.Namespace) -> int:
    from testjack_tui.audit.rulings import undo_ruling

    store = _store(args)
    try:
        ruling = undo_ruling(store, args.ruling, args.reason, author=args.author_name, run_ref=args.run)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    print(f"ruling #{ruling.id} undoes #{args.ruling}; verdicts recomputed")
    return EXIT_OK


# ---------------------------------------------------------------------- cache

def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return ""


def _days_ago(when: float) -> str:
    import time

    days = (time.time() - when) / 86400
    return "today" if days < 1 else f"{days:.0f} days ago"


def cmd_cache(args: argparse.Namespace) -> int:
    from testjack_tui.worlds.cache import totals, usage
    from testjack_tui.worlds.materialise import default_cache_dir

    cache_dir = default_cache_dir()
    print(f"cache: {cache_dir}")
    rows = totals(usage(cache_dir))
    if not rows:
        print("empty")
        return EXIT_OK
    print(f"{'kind':<12} {'entries':>7} {'size':>10}  oldest last use")
    for t in rows:
        print(f"{t.kind:<12} {t.count:>7} {_size(t.bytes):>10}  {_days_ago(t.oldest_use)}")
    print(f"{'total':<12} {sum(t.count for t in rows):>7} {_size(sum(t.bytes for t in rows)):>10}")
    return EXIT_OK


def cmd_cache_prune(args: argparse.Namespace) -> int:
    from testjack_tui.worlds.cache import prune
    from testjack_tui.worlds.materialise import default_cache_dir

    if args.older_than < 0:
        raise CliError(f"--older-than {args.older_than}: days must not be negative")
    cache_dir = default_cache_dir()
    summary = prune(cache_dir, args.older_than, dry_run=args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    for e in summary.removed:
        print(f"{verb} {e.kind} {e.name} ({_size(e.bytes)}, last used {_days_ago(e.last_used)})")
    for e, why in summary.skipped:
        print(f"skipped {e.kind} {e.name}: {why}")
    freed = "would free" if args.dry_run else "freed"
    print(f"{freed} {_size(summary.freed)} in {len(summary.removed)} entries from {cache_dir}")
    return EXIT_OK


# ---------------------------------------------------------------------- doctor

def cmd_doctor(args: argparse.Namespace) -> int:
    """The store's health, read without changing it: exit 0 healthy, 2 damaged or not a store."""
    import shlex
    from datetime import datetime

    from store import examine
    from store.schema import CURRENT_VERSION

    health = examine(args.store)
    if health.problem and health.integrity is None:
        raise CliError(health.problem)  # not a file SQLite could examine at all
    path = health.path
    print(f"store: {path} ({_size(health.size)})")
    problems = [p for p in health.integrity or [] if p != "ok"]
    if problems:
        print(f"integrity: DAMAGED, {len(problems)} problem(s) found by PRAGMA integrity_check:")
        for p in problems[:10]:
            for line in p.splitlines():
                if line.strip() and not line.startswith("*** in database"):
                    print(f"  {line.strip()}")
        if len(problems) > 10:
            print(f"  ... and {len(problems) - 10} more")
    else:
        print("integrity: ok (PRAGMA integrity_check)")
    version = health.schema_version
    if version is None:
        print("schema version: unreadable" if problems else "schema version: none (no TestJack tables yet)")
    elif version < CURRENT_VERSION:
        print(f"schema version: {version} (older; the next command that writes migrates it to {CURRENT_VERSION})")
    elif version > CURRENT_VERSION:
        print(f"schema version: {version} (made by a newer TestJack; this one knows up to "
              f"{CURRENT_VERSION}: upgrade testjack to use it)")
    else:
        print(f"schema version: {version} (current)")
    counts = health.counts or {}
    print("contents: " + ", ".join(
        f"{'unreadable' if counts.get(t) is None else counts[t]} {t}" for t in ("runs", "tasks", "trials")))
    leftovers = [s for s in health.staging or [] if not s.in_use]
    in_use = [s for s in health.staging or [] if s.in_use]
    if not leftovers and not in_use:
        print("staging: no leftover directories")
    for s in leftovers:
        when = datetime.fromtimestamp(s.modified).isoformat(sep=" ", timespec="seconds")
        print(f"staging: left over by an interrupted import: {s.path} ({_size(s.bytes)}, last written {when})")
    for s in in_use:
        print(f"staging: in use by a running import: {s.path} ({_size(s.bytes)})")
    quoted = shlex.quote(str(path))
    if health.problem:
        print(f"not healthy: {health.problem}")
        return EXIT_BAD_INPUT
    if problems:
        print("damaged: every testjack command now refuses this store, so nothing more is written to it. To do:")
        print(f"  1. copy it aside as it is: cp {quoted} {shlex.quote(str(path) + '.damaged')}")
        print(f"  2. restore {path.name} and {path.name}.files from a copy made while nothing was writing, or")
        print(f"  3. import the runs again into a new store (rulings and verdicts set by hand are only in the "
              f"store, so only a copy keeps them):")
        for run_id, source in health.runs or []:
            print(f"     testjack import {shlex.quote(source) if source else '<its folder>'} --store NEW.db   # {run_id}")
        if health.runs is None:
            print("     testjack import <each run's folder> --store NEW.db   (the list of runs is unreadable)")
        if any("not a database" in p for p in problems):
            print("note: SQLite does not recognise this file as a database at all; if it is not your store, "
                  "give --store the right file")
        return EXIT_BAD_INPUT
    if leftovers:
        print(f"healthy; {len(leftovers)} leftover staging director{'y' if len(leftovers) == 1 else 'ies'} "
              f"(above), removed by the next command that writes (import, audit, rule, verdict, undo, replay) "
              f"or by hand")
    else:
        print("healthy: nothing to do")
    return EXIT_OK


# ---------------------------------------------------------------------- the console

def cmd_open(args: argparse.Namespace) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CliError("the review console needs a terminal; for scripts use testjack audit, report, rule or verdict")
    store = _store(args)
    run_id = None
    if getattr(args, "target", None):
        run_id = _resolve_run(store, args.target)
    try:
        from testjack_tui.app.main import run_console
    except ImportError as exc:
        raise CliError(f"the review console is not available in this build ({exc})", EXIT_ENVIRONMENT) from exc
    run_console(store.path, run_id=run_id, audit=getattr(args, "audit", False),
                analyst=getattr(args, "analyst", None))
    return EXIT_OK


# ---------------------------------------------------------------------- parser

def _seconds(text: str) -> float:
    """An argparse type: a finite number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds, 0 or more, not {text}")
    return value


def _default_analyst() -> str:
    """The --by default of rule, verdict and undo: the console's settings rule (see app/settings.py)."""
    from testjack_tui.app.settings import Settings

    return Settings.load().analyst_name()


def _at_least_one(text: str) -> int:
    """An argparse type: a whole number of 1 or more (workers, rounds); argparse exits 2 naming the option."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    from store import default_store_path

    store_help = "the SQLite store (default $TESTJACK_STORE, else ./testjack.db)"
    # --store may come before or after the command; the subcommands' copy must not overwrite a
    # value given before the command with its default, so only the top level has a default.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", default=argparse.SUPPRESS, help=store_help)
    parser = argparse.ArgumentParser(
        prog="testjack",
        description="Audit the successes a coding benchmark reports. Without a command: the review console.",
    )
    parser.add_argument("--store", default=default_store_path(), help=store_help)
    sub = parser.add_subparsers(dest="command")

    p = sub.add_parser("import", parents=[common], help="import a run; prints its id")
    p.add_argument("path")
    p.add_argument("--format", default="auto", choices=["auto", "native", "swebench", "humaneval", "harbor"])
    p.add_argument("--name", help="the run's name (default: from the files)")
    p.add_argument("--samples", help="humaneval: the samples file, when PATH is the problems file")
    p.add_argument("--predictions", action="append", help="swebench: predictions file(s)")
    p.add_argument("--report", action="append", help="swebench: the harness's report(s) of resolved ids; one per model: <model>.<run_id>.json")
    p.add_argument("--repos", help="swebench: a directory of local clones")
    p.add_argument("--repo-url", dest="repo_url", help="swebench: git URL template, e.g. https://host/{repo}.git")
    p.add_argument("--jobs", help="harbor: the job directory")
    p.add_argument("--swebench-envs", dest="swebench_envs", metavar="FILE",
                   help="swebench: a TOML file of environment facts per repository and version, laid over "
                        "the built-in one (see docs/swebench.md)")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("audit", parents=[common], help="audit a run headless, with a progress bar")
    p.add_argument("run", metavar="RUN|PATH")
    p.add_argument("--mode", default="lightweight", choices=["lightweight", "per-trial", "task-analysis"])
    p.add_argument("--author", default="offline", choices=["offline", "llm", "none"])
    p.add_argument("--rounds", type=_at_least_one, default=3, help="lightweight: audit rounds per task (default 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=_at_least_one, default=max(1, min(4, os.cpu_count() or 1)))
    p.add_argument("--backend", choices=["local", "docker"], default=None)
    p.add_argument("--few-trials", choices=["refute", "ambiguous"], default=None,
                   help="tasks with one or two passing trials: an implicit witness most of them fail refutes "
                        "(refute, the default: rho cannot show a prompt defect there) or is a prompt defect "
                        "(ambiguous, A.2's letter); kept with the run")
    p.add_argument("--json", action="store_true", help="print the report JSON instead of the summary table")
    p.add_argument("--executor", choices=["local", "ray"], default="local",
                   help="local: worker threads on this machine (default); ray: every test run as a task on "
                        "a Ray cluster (pip install 'testjack[ray]'; see docs/scale.md)")
    p.add_argument("--ray-address", metavar="ADDR", default=None,
                   help="with --executor ray: the cluster, host:port or auto (default $TESTJACK_RAY_ADDRESS; "
                        "none: a private Ray on this machine)")
    p.add_argument("--no-mutation", action="store_true",
                   help="no mutation testing of the trials' changed lines (it costs one T0 run per mutant)")
    p.add_argument("--mutation-budget", type=_seconds, default=None, metavar="SECONDS",
                   help="time for mutation testing per audited trial (default 20; 0 = none)")
    p.add_argument("--budget", action="append", metavar="KEY=VALUE",
                   help="LLM author budget, repeatable: run_tokens, run_usd, trial_tokens, trial_usd "
                        "(default $TESTJACK_LLM_BUDGET); no call starts that could exceed it")
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("open", parents=[common], help="open the review console on a run")
    p.add_argument("target", metavar="PATH|RUN", nargs="?")
    p.add_argument("--audit", action="store_true", help="audit it in background workers while you watch")
    p.add_argument("--by", dest="analyst", default=None, metavar="NAME",
                   help="the name stored on your rulings (default $TESTJACK_ANALYST, else the console's "
                        "settings, else the login name)")
    p.set_defaults(func=cmd_open)

    p = sub.add_parser("report", parents=[common], help="export the curated report")
    p.add_argument("run", metavar="RUN")
    p.add_argument("--format", default="md", choices=["md", "html", "json"])
    p.add_argument("-o", "--output", help="write to FILE instead of standard output")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("leaderboard", parents=[common],
                       help="the corrected leaderboard: per model (or agent), resolution before and after the audit, "
                            "with 95% intervals and ranks")
    p.add_argument("run", metavar="RUN")
    p.add_argument("--by", default="model", choices=["model", "agent"])
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_leaderboard)

    p = sub.add_parser("export", parents=[common],
                       help="write the benchmark with T1 (T0 + the refuting witnesses) as its tests, in its own format")
    p.add_argument("run", metavar="RUN")
    p.add_argument("--format", required=True, choices=["swebench", "evalplus", "harbor", "native"])
    p.add_argument("-o", "--output", required=True, metavar="PATH", help="a new (or empty) folder")
    p.add_argument("--include-ambiguous", action="store_true",
                   help="add the witnesses ruled ambiguous (prompt defects) too")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("compare", parents=[common],
                       help="refutations of runs audited in other modes, measured against a baseline run")
    p.add_argument("baseline", metavar="BASELINE_RUN")
    p.add_argument("runs", metavar="RUN", nargs="+")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("replay", parents=[common], help="re-run one witness on the reference and the trials")
    p.add_argument("witness")
    p.add_argument("--trial", help="only this trial (default: every passing trial of the task)")
    p.add_argument("--workers", type=_at_least_one, default=max(1, min(4, os.cpu_count() or 1)))
    p.add_argument("--backend", choices=["local", "docker"], default=None)
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("rule", parents=[common],
                       help="rule a witness necessary or ambiguous, or a domain constraint wrong")
    p.add_argument("witness", metavar="WITNESS|CONSTRAINT")
    p.add_argument("--as", dest="value", required=True, choices=["necessary", "ambiguous", "wrong"])
    p.add_argument("--run", default=None, help="the run a constraint belongs to (for --as wrong)")
    p.add_argument("--reason", required=True)
    p.add_argument("--by", dest="author_name", default=_default_analyst())
    p.set_defaults(func=cmd_rule)

    p = sub.add_parser("verdict", parents=[common], help="override a trial's verdict")
    p.add_argument("trial")
    p.add_argument("--set", dest="value", required=True, choices=["sound", "refuted", "reward_hack"])
    p.add_argument("--reason", required=True)
    p.add_argument("--run", help="the run, when the trial id is in several")
    p.add_argument("--by", dest="author_name", default=_default_analyst())
    p.set_defaults(func=cmd_verdict)

    p = sub.add_parser("undo", parents=[common], help="undo a ruling (kept in the history)")
    p.add_argument("ruling", type=int)
    p.add_argument("--reason", default="undone")
    p.add_argument("--run", help="the run the ruling belongs to, when ids could clash")
    p.add_argument("--by", dest="author_name", default=_default_analyst())
    p.set_defaults(func=cmd_undo)

    p = sub.add_parser("doctor", parents=[common],
                       help="check the store: SQLite's integrity_check, schema version, contents, leftover staging")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("cache", help="what the cache holds ($TESTJACK_CACHE, else ~/.cache/testjack)")
    p.set_defaults(func=cmd_cache)
    cache_sub = p.add_subparsers(dest="cache_command")
    pp = cache_sub.add_parser("prune", help="remove snapshot trees and environments not used for DAYS")
    pp.add_argument("--older-than", dest="older_than", type=float, default=30.0, metavar="DAYS",
                    help="unused for this many days (default 30); world leftovers go after a day")
    pp.add_argument("--dry-run", action="store_true", help="print what would go; remove nothing")
    pp.set_defaults(func=cmd_cache_prune)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        args.target = None
        args.audit = False
        args.analyst = None
        args.func = cmd_open
    from store import StoreError

    try:
        return args.func(args)
    except CliError as exc:
        _err(str(exc))
        return exc.code
    except StoreError as exc:  # an unknown run, trial, witness or ruling; a store we cannot open
        _err(str(exc))
        return EXIT_BAD_INPUT
    except sqlite3.DatabaseError as exc:  # met after the opening checks: damage, a lock, a read-only file
        from store.db import store_problem

        _err(str(store_problem(Path(args.store), exc)))
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

"""The commands that read an audit or rule on it: report, compare, leaderboard, export, replay, rule, verdict, undo."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from testjack_tui.cli.common import EXIT_OK, CliError, _err, _store
from testjack_tui.cli.importing import _resolve_run


def cmd_report(args: argparse.Namespace) -> int:
    from testjack_tui.report import json_schema, read_report, render

    if args.schema:  # the JSON Schema of testjack.report/1: no store needed
        text = json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
    elif not args.run:
        raise CliError("report: name a RUN (or ask for --schema)")
    else:
        store = _store(args)
        run_id = _resolve_run(store, args.run, allow_path=False)
        text = render(read_report(store, run_id), args.format)
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
    from testjack_tui.figures import cost, interval, pct, refuted_share

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
        after = pct(r["resolution_after"]) + (f" {interval((ci['low'], ci['high']))}" if ci else "")
        fmt = lambda x: "-" if x is None else pct(x)  # noqa: E731
        table.add_row(r["run"], ",".join(r["modes"]), refuted_share(r["refuted"], r["refuted_pct"]),
                      fmt(r["recall"]), fmt(r["precision"]), str(r["executions"]), str(r["llm_tokens"]),
                      cost(r["cost_usd"]), after)
    Console().print(table)
    return EXIT_OK


# ---------------------------------------------------------------------- leaderboard, export

def cmd_leaderboard(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table
    from testjack_tui.figures import interval, pct
    from testjack_tui.report.leaderboard import change_short, leaderboard, rank_text, rows_json

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
                      pct(r.resolution_before), str(r.refuted), str(r.reward_hack), str(r.unaudited),
                      pct(r.resolution_after), interval(r.resolution_after_95),
                      rank_text(r.rank_before, r.tied_before), change_short(r))
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 130))
    console.print(table)
    console.print("before / after: resolution by the benchmark's own tests / with refuted trials (reward hacks "
                  "included) and trials not reproduced here counted as failures; unaudited trials count as passes "
                  "and the 95% interval covers "
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

"""testjack audit: the environment checks before it, the progress bar during it, the summary after it."""

from __future__ import annotations

import argparse
import re
import sys

from testjack_tui.cli.common import EXIT_ENVIRONMENT, EXIT_OK, CliError, _err, store_removed_on_error
from testjack_tui.cli.importing import _resolve_run
from testjack_tui.cli.llm import endpoint_options, preflight
from testjack_tui.environment import DockerWorlds, Endpoint, Variables, read


def _check_environment(store, run_id: str, author: str, backend: str | None, given: dict[str, str]) -> None:
    if author == "llm":
        endpoint = read(Endpoint, **given)
        if not endpoint.base_url and not endpoint.api_key:
            raise CliError(
                "--author llm needs an OpenAI-compatible endpoint: set OPENAI_BASE_URL or --base-url (for "
                "example http://localhost:8000/v1 for a local vLLM or Ollama server), OPENAI_API_KEY, and "
                "TESTJACK_MODEL or --model (the model name)",
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
        from testjack_tui.worlds.engine_check import docker_problem, missing_images

        read(DockerWorlds)  # a bad disk bound is named now (exit 2), not in every test's result
        problem = docker_problem(only_docker) or missing_images(
            {t.id: t.environment.image for t in tasks if t.environment.image})
        if problem:
            raise CliError(problem, EXIT_ENVIRONMENT)


def cmd_audit(args: argparse.Namespace) -> int:
    from testjack_tui.audit import Audit, AuditOptions
    from testjack_tui.authors.base import AuthorUnavailable
    from testjack_tui.authors.llm.settings import BadLLMOption

    ray_address = _ray_address(args)  # refused before the store is opened
    with store_removed_on_error(args) as store:
        run_id = _resolve_run(store, args.run)
    given = endpoint_options(args)
    if given and args.author != "llm":
        raise CliError("--model and --base-url choose the LLM author's server; use them with --author llm")
    _check_environment(store, run_id, args.author, args.backend, given)
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
    options.author_options.update(given)
    options.author_options.update(_symbolic(args))
    try:
        audit = Audit(store, run_id, options)
    except BadLLMOption as exc:  # a value the user gave, not a missing endpoint
        raise CliError(str(exc)) from exc
    except AuthorUnavailable as exc:
        raise CliError(str(exc), EXIT_ENVIRONMENT) from exc
    if args.author == "llm":
        preflight(audit.author)  # stops before anything is spent when the author cannot work
    if args.executor != "local":
        from testjack_tui.audit.execution import ExecutorUnavailable

        try:
            audit.service.open()
        except ExecutorUnavailable as exc:
            raise CliError(str(exc), EXIT_ENVIRONMENT) from exc
    status = _run_with_progress(audit)  # on stderr, with --json too: stdout carries only the report
    if args.json:
        from testjack_tui.report import read_report, render_json

        sys.stdout.write(render_json(read_report(store, run_id)))
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
    given = args.ray_address
    address = given or read(Variables).ray_address
    if address and not _RAY_ADDRESS.fullmatch(address):
        named = "--ray-address" if given else "$TESTJACK_RAY_ADDRESS"
        raise CliError(f"{named} {address!r} is not a cluster address: give host:port of its head "
                       "(e.g. 10.0.0.5:6379), ray://host:port, or auto on a node of the cluster")
    return address


# What Ray itself takes as a cluster's address: its head's host:port (with ray:// for Ray Client),
# or "auto" on a node; anything else fails deep inside ray.init with Ray's own words.
_RAY_ADDRESS = re.compile(r"auto|(ray://)?[A-Za-z0-9._\-\[\]:]+:\d{1,5}")


def _symbolic(args: argparse.Namespace) -> dict[str, object]:
    """--symbolic on and --symbolic-budget as the offline author's options; refused where they cannot work."""
    if args.symbolic != "on":
        if args.symbolic_budget is not None:
            raise CliError("--symbolic-budget limits the symbolic probe; use it with --symbolic on")
        return {}
    if args.author != "offline":
        raise CliError("--symbolic on is a probe of the offline author; use it with --author offline")
    if args.mode == "task-analysis":
        raise CliError("--symbolic on searches each audited trial; task analysis audits none")
    import importlib.util

    if importlib.util.find_spec("crosshair") is None:
        raise CliError("--symbolic on needs CrossHair: pip install 'testjack[symbolic]' (crosshair-tool)",
                       EXIT_ENVIRONMENT)
    out: dict[str, object] = {"symbolic": True}
    if args.symbolic_budget is not None:
        out["symbolic_budget"] = args.symbolic_budget
    return out


def _budget(items: list[str]) -> dict[str, float]:
    """--budget run_usd=5 --budget trial_tokens=20000 as the LLM author's budget."""
    from testjack_tui.authors.llm.settings import BUDGET_KEYS, amount_problem

    budget: dict[str, float] = {}
    for item in items:
        key, _, value = item.partition("=")
        if key not in BUDGET_KEYS:
            raise CliError(f"--budget {item}: the key must be one of {', '.join(BUDGET_KEYS)}")
        try:
            budget[key] = float(value)
        except ValueError:
            raise CliError(f"--budget {item}: {value!r} is not a number") from None
        if problem := amount_problem(budget[key]):
            raise CliError(f"--budget {item}: {problem}")
    return budget


def _run_with_progress(audit) -> str:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from testjack_tui.cli.progress import ProgressLines, StopOnSignals

    console = Console(stderr=True)
    lines = None if console.is_terminal else ProgressLines(audit, sys.stderr)
    with Progress(
        TextColumn("[bold]{task.fields[phase]}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), TextColumn("{task.description}"),
        console=console, transient=False, disable=not console.is_terminal,
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
    from testjack_tui.figures import cost, pct, refuted_share

    s = store.summary(run_id)
    table = Table(title=f"TestJack audit of {run_id}", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    rows = [
        ("trials", s.trials), ("passing (benchmark)", s.passing),
        ("refuted (reward hacks included)", refuted_share(s.refuted, s.refuted_pct, of="passing")),
        ("reward hacks", s.reward_hack), ("sound", s.sound), ("unaudited", s.unaudited),
        ("not reproduced (T0 here does not pass)", s.not_reproduced),
        ("ambiguous witnesses (prompt defects)", s.ambiguous_witnesses),
        ("witnesses that need your ruling", s.needs_ruling_witnesses),
        ("witnesses outside the input domain", s.outside_domain_witnesses),
        ("slow findings (never refutations)", s.slow_findings), ("malformed tasks", s.malformed_tasks),
        ("resolution before", pct(s.resolution_before)), ("resolution after", pct(s.resolution_after)),
        ("executions", s.executions),
    ]
    if s.llm_tokens:
        rows.append(("LLM tokens / cost", f"{s.llm_tokens} / {cost(s.cost_usd)}"))
    for name, value in rows:
        table.add_row(name, str(value))
    Console().print(table)

"""The argument parser: every command, its options and their defaults (CONTRACTS.md)."""

from __future__ import annotations

import argparse
import difflib
import math
from typing import Sequence

from testjack_tui.cli.auditing import cmd_audit
from testjack_tui.cli.common import DEFAULT_WORKERS
from testjack_tui.cli.console import cmd_open
from testjack_tui.cli.importing import cmd_import
from testjack_tui.cli.llm import cmd_llm, cmd_llm_check
from testjack_tui.cli.reviewing import (cmd_compare, cmd_export, cmd_leaderboard, cmd_replay, cmd_report, cmd_rule,
                                        cmd_undo, cmd_verdict)
from testjack_tui.cli.upkeep import cmd_cache, cmd_cache_prune, cmd_doctor
from testjack_tui.model import FEW_TRIALS_POLICIES


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
    """The --by default of rule, verdict and undo: the console's settings rule (see settings.py)."""
    from testjack_tui.settings import Settings

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
    from testjack_tui.store import default_store_path

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
    parser.set_defaults(commands=sub.choices)  # name -> its parser, for parse()'s messages

    # the LLM author's server and model: the audit and the check take the same choice
    endpoint = argparse.ArgumentParser(add_help=False)
    endpoint.add_argument("--model", default=None,
                          help="the LLM author's model (default $TESTJACK_MODEL, else $OPENAI_MODEL)")
    endpoint.add_argument("--base-url", dest="base_url", default=None, metavar="URL",
                          help="the OpenAI-compatible server, ending in /v1 (default $OPENAI_BASE_URL)")

    # where an audit's tests run: the headless audit and the console's audits take the same choice
    executor = argparse.ArgumentParser(add_help=False)
    executor.add_argument("--executor", choices=["local", "ray"], default="local",
                          help="local: worker threads on this machine (default); ray: every test run as a "
                               "task on a Ray cluster (pip install 'testjack[ray]'; see docs/scale.md)")
    executor.add_argument("--ray-address", metavar="ADDR", default=None,
                          help="with --executor ray: the cluster, host:port or auto (default "
                               "$TESTJACK_RAY_ADDRESS; none: a private Ray on this machine)")

    p = sub.add_parser("import", parents=[common], help="import a run; prints its id")
    p.add_argument("path")
    p.add_argument("--format", default="auto",
                   choices=["auto", "native", "swebench", "humaneval", "evalplus", "harbor", "swebench_pro"])
    p.add_argument("--name", help="the run's name (default: from the files)")
    p.add_argument("--samples", help="humaneval, evalplus: the samples file, when PATH is the problems file")
    p.add_argument("--t0", choices=["base", "plus"], default=None,
                   help="evalplus: T0 is EvalPlus's base inputs (base, the default) or the base and the extended "
                        "inputs (plus)")
    p.add_argument("--predictions", action="append", help="swebench: predictions file(s)")
    p.add_argument("--report", action="append", help="swebench: the harness's report(s) of resolved ids; one per model: <model>.<run_id>.json")
    p.add_argument("--repos", help="swebench: a directory of local clones")
    p.add_argument("--repo-url", dest="repo_url", help="swebench: git URL template, e.g. https://host/{repo}.git")
    p.add_argument("--jobs", help="harbor: the job directory")
    p.add_argument("--scripts", metavar="DIR", help="swebench_pro: the release's run_scripts/ (default: beside PATH)")
    p.add_argument("--image-repository", dest="image_repository", metavar="REPO",
                   help="swebench_pro: where the instance images are tagged (default jefzda/sweap-images)")
    p.add_argument("--swebench-envs", dest="swebench_envs", metavar="FILE",
                   help="swebench: a TOML file of environment facts per repository and version, laid over "
                        "the built-in one (see docs/swebench.md)")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("audit", parents=[common, executor, endpoint], help="audit a run headless, with a progress bar")
    p.add_argument("run", metavar="RUN|PATH")
    p.add_argument("--mode", default="lightweight", choices=["lightweight", "per-trial", "task-analysis"])
    p.add_argument("--author", default="offline", choices=["offline", "llm", "none"])
    p.add_argument("--rounds", type=_at_least_one, default=3, help="lightweight: audit rounds per task (default 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=_at_least_one, default=DEFAULT_WORKERS)
    p.add_argument("--backend", choices=["local", "docker"], default=None)
    p.add_argument("--few-trials", choices=list(FEW_TRIALS_POLICIES), default=None,
                   help="an implicit witness whose rho one trial would decide (one or two passing trials, a tie): "
                        "needs ruling, refuting nothing until you rule (ruling, the default), A.2's letter alone "
                        "(ambiguous), or, with one or two passing trials, refutes (refute: opt-in, measured to "
                        "refute correct trials on held-out data; docs/domain.md); kept with the run")
    p.add_argument("--json", action="store_true", help="print the report JSON instead of the summary table")
    p.add_argument("--no-mutation", action="store_true",
                   help="no mutation testing of the trials' changed lines (it costs one T0 run per mutant)")
    p.add_argument("--mutation-budget", type=_seconds, default=None, metavar="SECONDS",
                   help="time for mutation testing per audited trial (default 20; 0 = none)")
    p.add_argument("--budget", action="append", metavar="KEY=VALUE",
                   help="LLM author budget, repeatable: run_tokens, run_usd, trial_tokens, trial_usd "
                        "(default $TESTJACK_LLM_BUDGET); no call starts that could exceed it")
    p.add_argument("--symbolic", choices=["on", "off"], default="off",
                   help="offline author: also ask CrossHair (the 'symbolic' extra) for inputs where each trial "
                        "and the reference differ; they join the probe as candidates (default off)")
    p.add_argument("--symbolic-budget", type=_seconds, default=None, metavar="SECONDS",
                   help="CPU seconds of symbolic search per audited trial (default 30; 15 at most per function)")
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("open", parents=[common, executor], help="open the review console on a run")
    p.add_argument("target", metavar="PATH|RUN", nargs="?")
    p.add_argument("--audit", action="store_true", help="audit it in background workers while you watch")
    p.add_argument("--by", dest="analyst", default=None, metavar="NAME",
                   help="the name stored on your rulings (default $TESTJACK_ANALYST, else the console's "
                        "settings, else the login name)")
    p.set_defaults(func=cmd_open)

    p = sub.add_parser("report", parents=[common], help="export the curated report")
    p.add_argument("run", metavar="RUN", nargs="?")
    p.add_argument("--format", default="md", choices=["md", "html", "json"])
    p.add_argument("--schema", action="store_true",
                   help="print the JSON Schema of the report's JSON (testjack.report/1) instead of a report")
    p.add_argument("-o", "--output", help="write to FILE instead of standard output")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("leaderboard", parents=[common],
                       help="the corrected leaderboard: per model (or agent), resolution before and after the audit, "
                            "with 95%% intervals and ranks")
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
    p.add_argument("--workers", type=_at_least_one, default=DEFAULT_WORKERS)
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

    p = sub.add_parser("cache", help="what the cache holds ($TESTJACK_CACHE, else the user's cache folder)")
    p.set_defaults(func=cmd_cache)
    cache_sub = p.add_subparsers(dest="cache_command")
    pp = cache_sub.add_parser("prune", help="remove snapshot trees and environments not used for DAYS")
    pp.add_argument("--older-than", dest="older_than", type=float, default=30.0, metavar="DAYS",
                    help="unused for this many days (default 30); world leftovers go after a day")
    pp.add_argument("--dry-run", action="store_true", help="print what would go; remove nothing")
    pp.set_defaults(func=cmd_cache_prune)

    p = sub.add_parser("llm", help="the LLM author's server and model")
    p.set_defaults(func=cmd_llm, parser=p)
    llm_sub = p.add_subparsers(dest="llm_command")
    pp = llm_sub.add_parser("check", parents=[endpoint],
                            help="list the server's models, make one tool call, and say in one line what works "
                                 "and what to set")
    pp.set_defaults(func=cmd_llm_check)
    return parser


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """``parser.parse_args``, except that an option the command does not know is reported by that
    command (its usage, not the top level's), with the closest options it does know."""
    args, unknown = parser.parse_known_args(argv)
    if not unknown:
        return args
    command = args.commands.get(args.command) if args.command else None
    owner = command or parser
    known = [o for action in owner._actions for o in action.option_strings]  # argparse keeps no public list
    hints = {u: difflib.get_close_matches(u.split("=", 1)[0], known, n=2, cutoff=0.75) for u in unknown if u.startswith("-")}
    said = "; ".join(f"did you mean {' or '.join(h)} for {u}?" for u, h in hints.items() if h)
    owner.error(f"unrecognized arguments: {' '.join(unknown)}" + (f" ({said})" if said else ""))

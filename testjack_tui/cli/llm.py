"""testjack llm check: whether the LLM author can work with the server and model set, in one line;
and the same check before an ``--author llm`` audit spends anything."""

from __future__ import annotations

import argparse

from testjack_tui.cli.common import EXIT_ENVIRONMENT, EXIT_OK, CliError, _err


def endpoint_options(args: argparse.Namespace) -> dict[str, str]:
    """The LLM author's options given on the command line (--model, --base-url); they win over
    the environment."""
    from testjack_tui.authors.endpoint import endpoint_options as given

    return given(getattr(args, "model", None), getattr(args, "base_url", None))


def cmd_llm_check(args: argparse.Namespace) -> int:
    from testjack_tui.authors.base import AuthorUnavailable
    from testjack_tui.authors.llm import LLMAuthor
    from testjack_tui.authors.llm.preflight import check
    from testjack_tui.authors.llm.settings import BadLLMOption

    try:
        author = LLMAuthor(**endpoint_options(args))
    except BadLLMOption as exc:
        raise CliError(str(exc)) from exc
    except AuthorUnavailable as exc:
        raise CliError(str(exc), EXIT_ENVIRONMENT) from exc
    result = check(author.client)
    if result.models is not None:
        print(f"models: {', '.join(result.models) if result.models else '(none listed)'}")
    print(result.line)
    return EXIT_OK if result.works else EXIT_ENVIRONMENT


def cmd_llm(args: argparse.Namespace) -> int:
    args.parser.print_usage()
    raise CliError("say what to do: testjack llm check")


def preflight(author) -> None:
    """Before an audit: stop (exit 3) when the LLM author cannot work, saying why; else say what works."""
    from testjack_tui.authors.llm.preflight import check

    result = check(author.client)
    if not result.works:
        raise CliError(result.before_audit(), EXIT_ENVIRONMENT)
    _err(result.before_audit())

"""The agent loop: model turn, tool calls, tool results, until a closing tool or a limit.

One ``Session`` is one step of the audit (checklist, task analysis, trial audit, refinement,
re-judgment) with the tools that step allows. The conversation always starts with the system
prompt and the task context (the cache-friendly prefix), then the step's request.

A malformed call (unknown tool, bad JSON, arguments that do not validate or are too large, a
turn with no tool call where one is needed) is answered with the error so the model can correct
itself; it still cost a turn. Calls a server left in the reply's text (``Reply.from_text``) are
run like any other, and their results go back as one user message, since such a server knows
no ``tool`` role. A good call resets the count; one more than ``max_bad_calls``
malformed calls in a row ends the session with ``stopped == "bad calls"`` and the last error in
``problem``, which the author turns into ``AuthorFailed`` (a broken session is not an audit).

A session has one wall-clock deadline, ``session_deadline_s``, for all its turns, tool runs and
retries: no request runs past it (each is cut to what is left), and a session that reaches it ends
with ``stopped == "deadline"``, which fails the step like malformed calls do. So a server that
answers each request just under ``timeout_s`` holds a session for ``session_deadline_s`` at most,
not ``max_turns x timeout_s``.

A plain answer closes a step that allows one only once the model has made a good call in the
session: a model that cannot call tools at all would otherwise end every step at once with its
text as the report, and the step would count as done with nothing looked at.

What goes back to the model is bounded: each tool result to ``max_message_bytes`` (cut with a
marker), and the client has already bounded the reply itself. The session's calls share one
``Conversation``, so the store keeps each message of the session once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from testjack_tui.authors.base import AuthorContext, Candidate
from testjack_tui.authors.llm import prompts
from testjack_tui.authors.llm.client import ChatClient, Conversation, DeadlinePassed, Reply, ToolCall, clip
from testjack_tui.authors.llm.tools import (
    BadCall,
    Coverage,
    Finish,
    Judge,
    ListFiles,
    ProposeWitness,
    ReadDiff,
    ReadEvidence,
    ReadFile,
    RunCommand,
    RunTest,
    SearchFiles,
    SubmitChecklist,
    parse_call,
    schemas,
)
from testjack_tui.authors.llm.text_calls import CONTENT_FORMAT
from testjack_tui.authors.llm.workspace import Workspace
from testjack_tui.model import RequirementKind

LOOK = ["list_files", "read_file", "search", "read_diff"]
CLOSING = {"finish", "submit_checklist", "judge"}


@dataclass
class SessionResult:
    candidates: list[Candidate] = field(default_factory=list)
    report: str | None = None
    checklist: SubmitChecklist | None = None
    judgment: Judge | None = None
    turns: int = 0
    bad_calls: int = 0  # malformed calls in the whole session
    bad_in_a_row: int = 0  # malformed calls since the last good one
    good_calls: int = 0  # tool calls that were read and run: the model can drive its tools
    problem: str = ""  # the last malformed call's error
    stopped: str = ""  # why the session ended: the closing tool, "turn limit", "bad calls", "deadline", "answer"


class Session:
    def __init__(
        self,
        client: ChatClient,
        ctx: AuthorContext,
        purpose: str,
        request: str,
        tools: list[str],
        *,
        stop_after_witness: bool = False,
        plain_answer_closes: bool = False,
    ):
        self.client = client
        self.ctx = ctx
        self.purpose = purpose
        self.tools = tools
        self.stop_after_witness = stop_after_witness
        self.plain_answer_closes = plain_answer_closes
        self.workspace = Workspace(ctx)
        self.conversation = Conversation()
        self._trial_bound = False  # the deadline that ends this run is the trial's, not its own
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": prompts.SYSTEM},
            {"role": "user", "content": prompts.task_context(ctx.task)},
            {"role": "user", "content": request},
        ]

    def run(self, until: float | None = None) -> SessionResult:
        """``until``: a ``time.monotonic()`` instant the session must also end by (the deadline of
        the trial whose audit it belongs to), when sooner than its own."""
        out = SessionResult()
        limits = self.client.settings
        tool_schemas = schemas(self.tools)
        deadline = time.monotonic() + limits.session_deadline_s
        self._trial_bound = until is not None and until < deadline
        deadline = min(deadline, until) if until is not None else deadline
        while out.turns < limits.max_turns:
            if time.monotonic() >= deadline:  # the turns so far, tool runs included, used it up
                return self._expired(out, "")
            out.turns += 1
            try:
                reply = self.client.chat(self.ctx, self.purpose, self.messages, tool_schemas, self.conversation,
                                         deadline=deadline)
            except DeadlinePassed as exc:
                return self._expired(out, str(exc))
            self.messages.append(reply.as_message())
            if not reply.tool_calls and self._answered_plainly(reply, out):
                return out
            closed = False
            results: list[str] = []
            for call in reply.tool_calls:
                closed = self._answer(call, out, results if reply.from_text else None) or closed
            if results:
                self.messages.append({"role": "user", "content": "\n\n".join(results)})
            if reply.dropped_calls:
                self._calls_dropped(reply, out)
            if closed:
                return out
            if out.bad_in_a_row > limits.max_bad_calls:
                out.stopped = "bad calls"
                return out
        out.stopped = "turn limit"
        return out

    def _answered_plainly(self, reply: Reply, out: SessionResult) -> bool:
        """A reply that called no tool: the session's answer where a plain answer closes it,
        else a malformed turn the model is asked to correct."""
        if self.plain_answer_closes and reply.content.strip() and out.good_calls:
            out.report = reply.content.strip()
            out.stopped = "answer"
            return True
        if reply.text_problem:
            self._bad(out, f"the reply's tool call could not be read: {reply.text_problem}")
            correction = (f"Your tool call could not be read ({reply.text_problem}). Write each call as "
                          f"{CONTENT_FORMAT}")
        else:
            self._bad(out, "the reply called no tool")
            correction = f"Please call one of the tools ({', '.join(self.tools)})."
        self.messages.append({"role": "user", "content": correction})
        return False

    def _answer(self, call: ToolCall, out: SessionResult, results: list[str] | None = None) -> bool:
        """Run one tool call and answer it, an error included; whether it closes the session.
        The answer is a ``tool`` message, or goes to ``results`` for a call read from the text."""
        limit = self.client.settings.max_message_bytes
        try:
            if call.oversize:
                raise BadCall(
                    f"the arguments of {call.name} were {call.oversize} bytes, more than the "
                    f"{limit} TestJack keeps; they were dropped: send a shorter call"
                )
            args = parse_call(call.name, call.arguments, self.tools)
            text = self._dispatch(args, out)
            out.bad_in_a_row = 0
            out.good_calls += 1
        except BadCall as exc:
            self._bad(out, str(exc))
            text = f"error: {exc}"
        except ValueError as exc:  # a valid call the workspace could not serve
            out.bad_in_a_row = 0
            out.good_calls += 1
            text = f"error: {exc}"
        if results is None:
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": clip(text, limit)})
        else:
            results.append(f"Result of {call.name[:80]}:\n{clip(text, limit)}")
        closed = False
        if call.name in CLOSING and not text.startswith("error:"):
            closed = True
            out.stopped = call.name
        if self.stop_after_witness and out.candidates:
            closed = True
            out.stopped = "propose_witness"
        return closed

    def _calls_dropped(self, reply: Reply, out: SessionResult) -> None:
        """Tool calls past ``max_tool_calls`` were not run: a malformed turn, and the model is told."""
        self._bad(out, f"{reply.dropped_calls} tool calls past the first {len(reply.tool_calls)} of one turn")
        self.messages.append({"role": "user", "content": (
            f"Only the first {len(reply.tool_calls)} tool calls of your turn were run; "
            f"{reply.dropped_calls} more were dropped. Make fewer calls per turn."
        )})

    def _expired(self, out: SessionResult, detail: str) -> SessionResult:
        out.stopped = "deadline"
        limits = self.client.settings
        which = (f"the trial's deadline of {limits.trial_deadline_s:g} s (trial_deadline_s)" if self._trial_bound
                 else f"its deadline of {limits.session_deadline_s:g} s (session_deadline_s)")
        out.problem = f"passed {which} in turn {out.turns}" + (f": {detail}" if detail else "")
        return out

    @staticmethod
    def _bad(out: SessionResult, problem: str) -> None:
        out.bad_calls += 1
        out.bad_in_a_row += 1
        out.problem = problem

    def _dispatch(self, args: Any, out: SessionResult) -> str:
        ws = self.workspace
        if isinstance(args, ListFiles):
            return ws.list_files(args.world, args.folder)
        if isinstance(args, ReadFile):
            return ws.read_file(args.world, args.path, args.start_line, args.end_line)
        if isinstance(args, SearchFiles):
            return ws.search(args.world, args.pattern, args.folder)
        if isinstance(args, ReadDiff):
            return ws.read_diff(args.which)
        if isinstance(args, ReadEvidence):
            return ws.read_evidence()
        if isinstance(args, RunTest):
            return ws.run_test(args.world, args.code, args.path)
        if isinstance(args, RunCommand):
            return ws.run_command(args.world, args.command)
        if isinstance(args, Coverage):
            return ws.coverage(args.code, args.path)
        if isinstance(args, ProposeWitness):
            if args.path:
                ws.inside("reference", args.path)
            out.candidates.append(
                Candidate(
                    requirement=args.requirement.strip(),
                    kind=RequirementKind(args.kind),
                    code=args.code,
                    path=args.path,
                    note=args.note,
                )
            )
            return f"recorded as candidate {len(out.candidates)}; it will be validated on the reference world"
        if isinstance(args, Finish):
            out.report = args.report.strip()
            return "finished"
        if isinstance(args, SubmitChecklist):
            out.checklist = args
            return "checklist recorded"
        if isinstance(args, Judge):
            out.judgment = args
            return "judgment recorded"
        raise BadCall(f"unhandled tool {type(args).__name__}")


AUDIT_TOOLS = LOOK + ["read_evidence", "run_test", "run_command", "coverage", "propose_witness", "finish"]
ANALYSIS_TOOLS = LOOK + ["run_test", "run_command", "propose_witness", "finish"]
CHECKLIST_TOOLS = LOOK + ["submit_checklist"]
REFINE_TOOLS = LOOK + ["run_test", "propose_witness", "finish"]
REJUDGE_TOOLS = ["read_file", "read_diff", "judge"]

"""Whether the offline author reads a task's code: it reads Python only, and says so otherwise.

The offline author probes Python functions (``pysource``). A task whose reference patch changes
source files of other languages and no Python file (a Go, JavaScript or TypeScript instance of
SWE-bench Pro) gets no witness from it; ``unread_language`` words the reason, and the author raises
it as ``AuthorFailed``, so the engine records it for the task's analysis and leaves each trial
unaudited with it, rather than calling a trial sound because nothing was written. A patch that
changes no source file of a known language (a Harbor oracle's shell script) is left as before.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from testjack_tui.model import Task
from testjack_tui.patches import file_paths

# source file suffixes of the languages the offline author does not read, by language name
OTHER_LANGUAGES = {
    ".go": "Go", ".js": "JavaScript", ".jsx": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript",
    ".ts": "TypeScript", ".tsx": "TypeScript", ".java": "Java", ".kt": "Kotlin", ".rs": "Rust",
    ".rb": "Ruby", ".php": "PHP", ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".hpp": "C++",
    ".cs": "C#", ".swift": "Swift", ".scala": "Scala",
}


def unread_language(task: Task) -> str:
    """Why the offline author writes no witness for ``task`` ("" when it reads the task's code)."""
    suffixes = [PurePosixPath(p).suffix for p in file_paths(task.reference_patch)]
    if ".py" in suffixes:
        return ""
    languages = sorted({OTHER_LANGUAGES[s] for s in suffixes if s in OTHER_LANGUAGES})
    if not languages:
        return ""
    return (f"the offline author reads Python only: the reference patch of {task.id} changes "
            f"{' and '.join(languages)} code and no Python file, so it writes no witness for this task "
            f"(an analyst's witness or --author llm can)")

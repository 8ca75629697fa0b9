"""A tiny HumanEval run written for these tests: three problems, two samples each.

``last_word`` and ``count_vowels`` each get one sample that passes T0 and breaks an example the
prompt states (``last_word('   ') == ''``, ``count_vowels('AEIOU') == 5``), and one correct sample written
differently from the reference; ``double``'s two samples are both correct.
"""

from __future__ import annotations

import json
from pathlib import Path

PROBLEMS = [
    {
        "task_id": "Tiny/0",
        "entry_point": "last_word",
        "prompt": 'def last_word(text: str) -> str:\n'
                  '    """The last word of text (words are separated by spaces); "" when it has none.\n'
                  "    >>> last_word('hello big world')\n    'world'\n    >>> last_word('   ')\n    ''\n    \"\"\"\n",
        "canonical_solution": "    words = text.split()\n    return words[-1] if words else ''\n",
        "test": "\n\ndef check(candidate):\n    assert candidate('hello big world') == 'world'\n"
                "    assert candidate('one') == 'one'\n    assert candidate('a b ') == 'b'\n",
    },
    {
        "task_id": "Tiny/1",
        "entry_point": "count_vowels",
        "prompt": 'def count_vowels(text: str) -> int:\n'
                  '    """Count the vowels a, e, i, o and u in text, in upper or lower case.\n'
                  "    >>> count_vowels('hello')\n    2\n    >>> count_vowels('AEIOU')\n    5\n    \"\"\"\n",
        "canonical_solution": "    return sum(1 for c in text.lower() if c in 'aeiou')\n",
        "test": "\n\ndef check(candidate):\n    assert candidate('hello') == 2\n    assert candidate('xyz') == 0\n"
                "    assert candidate('banana') == 3\n",
    },
    {
        "task_id": "Tiny/2",
        "entry_point": "double",
        "prompt": 'def double(n: int) -> int:\n    """Return twice n.\n    >>> double(4)\n    8\n    """\n',
        "canonical_solution": "    return 2 * n\n",
        "test": "\n\ndef check(candidate):\n    assert candidate(4) == 8\n    assert candidate(0) == 0\n",
    },
]

BODIES = {
    ("Tiny/0", "good"): "    parts = [w for w in text.split(' ') if w]\n    return parts[-1] if parts else ''\n",
    ("Tiny/0", "bad"): "    return text.split()[-1]\n",
    ("Tiny/1", "good"): "    return len([c for c in text if c in 'aeiouAEIOU'])\n",
    ("Tiny/1", "bad"): "    return sum(c in 'aeiou' for c in text)\n",
    ("Tiny/2", "good"): "    return n + n\n",
    ("Tiny/2", "bad"): "    return n * 2\n",  # also correct: the name only says which model wrote it
}
REFUTED = {"tiny-0-bad", "tiny-1-bad"}


def write_tiny_humaneval(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    prompts = {p["task_id"]: p["prompt"] for p in PROBLEMS}
    with (folder / "problems.jsonl").open("w") as f:
        for p in PROBLEMS:
            f.write(json.dumps(p) + "\n")
    with (folder / "samples.jsonl").open("w") as f:
        for (task_id, kind), body in BODIES.items():
            sample = {"id": f"{task_id.lower().replace('/', '-')}-{kind}", "task_id": task_id,
                      "model": f"model-{kind}", "solution": prompts[task_id] + body, "base_status": "pass"}
            f.write(json.dumps(sample) + "\n")
    return folder

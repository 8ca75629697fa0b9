"""The schemas of the native format's hand-written files: run.toml, task.toml, a trials.jsonl line.

Each file is checked by one pydantic model in strict mode: a value must already have its type
(``timeout = "sixty"`` or ``setup = ["a", "b"]`` is refused, not coerced), numbers must be finite
(JSON's ``NaN`` and ``Infinity``, TOML's ``nan`` and ``inf`` are refused) and within range. A
failed check becomes :class:`ImportProblem` values naming the file and the record: the key path
for TOML (``[tests] timeout``), the line for JSONL. Keys the schema does not know are not errors:
they are returned as warnings naming each key, so a typo (``timout``) is seen, not silently lost.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from testjack_tui.formats import ImportProblem

_STRICT = ConfigDict(strict=True, extra="allow", allow_inf_nan=False)

Seconds = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]
# far above any real trial, and still exact as a float and within SQLite's INTEGER ("tokens": 10**30
# would otherwise overflow the store)
MAX_TOKENS = 10**15
BackendName = Literal["local", "docker"]


class _Table(BaseModel):
    model_config = _STRICT


# -- run.toml ------------------------------------------------------------------------------------


class RunDefaults(_Table):
    backend: BackendName = "local"
    image: str | None = None


class RunToml(_Table):
    name: str | None = None
    benchmark: str = ""
    description: str = ""
    defaults: RunDefaults = Field(default_factory=RunDefaults)


# -- task.toml -----------------------------------------------------------------------------------


class TaskTests(_Table):
    command: str | None = None
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    timeout: Seconds = 120.0
    log_parser: str = ""


class TaskEnvironment(_Table):
    backend: BackendName | None = None
    image: str | None = None
    requirements: list[str] = Field(default_factory=list)
    setup: str | None = None


class TaskToml(_Table):
    id: str | None = None
    title: str | None = None
    tests: TaskTests = Field(default_factory=TaskTests)
    environment: TaskEnvironment = Field(default_factory=TaskEnvironment)


# -- one line of trials.jsonl --------------------------------------------------------------------


class TrialLine(_Table):
    id: Annotated[str, Field(min_length=1)]
    task: str
    patch: Annotated[str, Field(min_length=1)]
    official: str
    model: str = ""
    agent: str = ""
    cost_usd: NonNegative | None = None
    tokens: Annotated[float, Field(ge=0, le=MAX_TOKENS, allow_inf_nan=False)] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("official")
    @classmethod
    def _official(cls, value: str) -> str:
        if value not in ("passed", "failed"):
            raise ValueError(f'must be "passed" or "failed", not {value!r}')
        return value

    @field_validator("tokens")
    @classmethod
    def _whole(cls, value: float | None) -> float | None:
        if value is not None and not float(value).is_integer():
            raise ValueError(f"must be a whole number, not {value!r}")
        return value


TRIAL_REQUIRED = ("id", "task", "patch", "official")


# -- checking ------------------------------------------------------------------------------------


def check_toml(
    model: type[BaseModel], data: dict[str, Any], path: Path
) -> tuple[BaseModel | None, list[ImportProblem], list[ImportProblem]]:
    """Validate a parsed TOML document: (the model or None, problems, unknown-key warnings)."""
    try:
        obj = model.model_validate(data)
    except ValidationError as exc:
        return None, [ImportProblem(str(path), _toml_key(model, e["loc"]), _message(e, "table"))
                      for e in exc.errors()], []
    warnings = [ImportProblem(str(path), key, "unknown key, ignored") for key in _unknown(obj, toml=True)]
    return obj, [], warnings


def check_line(
    model: type[BaseModel], data: dict[str, Any], path: Path, where: str
) -> tuple[BaseModel | None, list[ImportProblem], list[str]]:
    """Validate one JSON record: (the model or None, problems, the names of its unknown keys)."""
    try:
        obj = model.model_validate(data)
    except ValidationError as exc:
        return None, [ImportProblem(str(path), where, f"{_json_key(e['loc'])} {_message(e, 'JSON object')}")
                      for e in exc.errors()], []
    return obj, [], _unknown(obj, toml=False)


def _unknown(obj: BaseModel, toml: bool, prefix: str = "") -> list[str]:
    found = []
    for key, value in (obj.model_extra or {}).items():
        if not toml:
            found.append(f"{prefix}.{key}" if prefix else key)
        elif isinstance(value, dict):  # a whole table TestJack does not know
            found.append(f"[{prefix}.{key}]" if prefix else f"[{key}]")
        else:
            found.append(f"[{prefix}] {key}" if prefix else key)
    for name in type(obj).model_fields:
        value = getattr(obj, name)
        if isinstance(value, _Table):
            found += _unknown(value, toml, f"{prefix}.{name}" if prefix else name)
    return found


def _toml_key(model: type[BaseModel], loc: tuple[Any, ...]) -> str:
    """``('tests', 'timeout')`` -> ``[tests] timeout``; ``('tests', 'fail_to_pass', 1)`` -> ``[tests] fail_to_pass[1]``."""
    tables: list[str] = []
    current: Any = model
    rest = list(loc)
    while rest and isinstance(rest[0], str) and current is not None:
        field = current.model_fields.get(rest[0])
        annotation = field.annotation if field else None
        if isinstance(annotation, type) and issubclass(annotation, _Table):
            tables.append(rest.pop(0))
            current = annotation
        else:
            break
    key = ""
    for part in rest:
        key += f"[{part}]" if isinstance(part, int) else (f".{part}" if key else str(part))
    table = f"[{'.'.join(tables)}]" if tables else ""
    return f"{table} {key}".strip()


def _json_key(loc: tuple[Any, ...]) -> str:
    key = ""
    for part in loc:
        if isinstance(part, int):
            key += f"[{part}]"
        else:
            key += f".{part}" if key else str(part)
    return key


def _shown(value: Any) -> str:
    text = repr(value)
    if isinstance(value, float) and not math.isfinite(value):
        text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _bound(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _message(error: dict[str, Any], container: str) -> str:
    kind, value = error["type"], error.get("input")
    got = _shown(value)
    if kind == "missing":
        return "is missing"
    if kind in ("string_type", "str_type"):
        if isinstance(value, list):
            return f"must be a string, not a list ({got})"
        return f"must be a string, not {got}"
    if kind in ("float_type", "int_type", "float_parsing", "int_parsing"):
        return f"must be a number, not {got}"
    if kind == "finite_number":
        return f"must be a finite number, not {got}"
    if kind == "greater_than":
        return f"must be greater than {_bound(error['ctx']['gt'])}, not {got}"
    if kind == "greater_than_equal":
        return f"must be {_bound(error['ctx']['ge'])} or more, not {got}"
    if kind == "less_than_equal":
        return f"must be at most {_bound(error['ctx']['le'])}, not {got}"
    if kind == "list_type":
        return f"must be a list of strings, not {got}"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"must be a {container}, not {got}"
    if kind == "literal_error":
        return f"must be {error['ctx']['expected']}, not {got}"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "value_error":
        return str(error["msg"]).removeprefix("Value error, ")
    return f"{error['msg']} (got {got})"

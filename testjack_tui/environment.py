"""What this machine's environment tells TestJack: the variables a user sets, and where files live.

Every variable is a field of a pydantic-settings class below, named as the user spells it; an
empty value counts as unset, as it always has. The classes are split by who reads them, so that a
bad value stops only what uses it (a bad ``TESTJACK_PRICES`` fails an LLM audit, not a report).
``read`` turns pydantic's ValidationError into ``BadVariable``, one sentence naming the variable,
which the command line prints with exit code 2.

The folders are the platform's (platformdirs; on Linux ``$XDG_CONFIG_HOME/testjack`` and
``$XDG_CACHE_HOME/testjack``, which are ``~/.config/testjack`` and ``~/.cache/testjack`` when those
variables are unset) unless a variable names one. Earlier versions always used ``~/.config`` and
``~/.cache``: where such a folder exists it is kept, so nobody's settings or cache move.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, TypeVar

import platformdirs
from pydantic import AliasChoices, Field, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

APP = "testjack"
DISK_VARIABLE = "TESTJACK_DOCKER_DISK_MB"
DEFAULT_DISK_MB = 4096  # a SymPy or Django world takes a few hundred MB; tests write beside it
MIN_DISK_MB = 16  # below this not even a small world and its JUnit report fit


class BadVariable(ValueError):
    """A variable holds a value TestJack cannot use; the message names the variable."""


class _Variables(BaseSettings):
    # exact names (Linux's are case-sensitive), "" is unset, and a value given to ``read`` by its
    # field name (a command-line flag, a keyword option) wins over the variable
    model_config = SettingsConfigDict(case_sensitive=True, env_ignore_empty=True, extra="ignore",
                                      populate_by_name=True)


class Variables(_Variables):
    """The variables whose every value is usable: text and paths."""

    config_dir: Path | None = Field(None, validation_alias="TESTJACK_CONFIG_DIR")
    cache_dir: Path | None = Field(None, validation_alias="TESTJACK_CACHE")
    store: str = Field("testjack.db", validation_alias="TESTJACK_STORE")
    analyst: str = Field("", validation_alias="TESTJACK_ANALYST")
    login: str = Field("", validation_alias="USER")
    ray_address: str | None = Field(None, validation_alias="TESTJACK_RAY_ADDRESS")
    base_image_map: str = Field("", validation_alias="TESTJACK_BASE_IMAGE_MAP")
    swebench_envs: str | None = Field(None, validation_alias="TESTJACK_SWEBENCH_ENVS")


class DockerWorlds(_Variables):
    """The docker backend's bound on a world's disk, a setting of the machine, not of a request."""

    disk_mb: int = Field(
        DEFAULT_DISK_MB, ge=MIN_DISK_MB, validation_alias=DISK_VARIABLE,
        description=(f"the disk bound of a docker world is a whole number of MiB, at least {MIN_DISK_MB} "
                     f"(default {DEFAULT_DISK_MB}; it is held in memory, as tmpfs)"))


class LocalWorlds(_Variables):
    """How the local backend runs tests: warm processes (the default) or a new interpreter each time."""

    warm: bool = Field(True, validation_alias="TESTJACK_WARM")


class Endpoint(_Variables):
    """The LLM author's server and model (any value is usable; an unusable address is refused by the author)."""

    base_url: str | None = Field(None, validation_alias="OPENAI_BASE_URL")
    api_key: str | None = Field(None, validation_alias="OPENAI_API_KEY")
    # TESTJACK_MODEL wins over OPENAI_MODEL, which other OpenAI tools read
    model: str | None = Field(None, validation_alias=AliasChoices("model", "TESTJACK_MODEL", "OPENAI_MODEL"))


class LLMOptions(_Variables):
    """The LLM author's prices, budget and tuning options, JSON text parsed (their meaning is
    checked by the author, which gets the same values as keyword options too)."""

    prices: Annotated[Any, NoDecode] = Field(None, validation_alias="TESTJACK_PRICES")
    budget: Annotated[Any, NoDecode] = Field(None, validation_alias="TESTJACK_LLM_BUDGET")
    options: Annotated[Any, NoDecode] = Field(None, validation_alias="TESTJACK_LLM_OPTIONS")
    headers: Annotated[Any, NoDecode] = Field(None, validation_alias="TESTJACK_LLM_HEADERS")

    @field_validator("prices", "budget", "options", "headers", mode="before")
    @classmethod
    def _json(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, str):  # given as a keyword: already a value
            return value
        if not value.strip():
            return None
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            variable = cls.model_fields[info.field_name].validation_alias
            raise ValueError(f"{variable} is not valid JSON ({exc}): {value.strip()[:80]!r}") from None


S = TypeVar("S", bound=_Variables)


def read(kind: type[S], **given: Any) -> S:
    """The variables of ``kind`` from the environment, ``given`` values winning; BadVariable names a bad one."""
    try:
        return kind(**given)
    except ValidationError as exc:
        raise BadVariable(_sentence(kind, exc)) from None


def _sentence(kind: type[_Variables], exc: ValidationError) -> str:
    error = exc.errors()[0]
    if error["type"] == "value_error":  # our own validators say it all
        return str(error["ctx"]["error"])
    variable = str(error["loc"][0]) if error["loc"] else ""
    field = next((f for f in kind.model_fields.values() if f.validation_alias == variable), None)
    what = field.description if field and field.description else error["msg"]
    return f"{variable}={error['input']!r}: {what}"


# -- folders ----------------------------------------------------------------------------------


def config_dir() -> Path:
    """The settings folder: $TESTJACK_CONFIG_DIR, else ~/.config/testjack if it exists, else the platform's."""
    return read(Variables).config_dir or _kept(Path.home() / ".config" / APP,
                                               platformdirs.user_config_path(APP, appauthor=False))


def cache_dir() -> Path:
    """The cache folder: $TESTJACK_CACHE, else ~/.cache/testjack if it exists, else the platform's."""
    return read(Variables).cache_dir or _kept(Path.home() / ".cache" / APP,
                                              platformdirs.user_cache_path(APP, appauthor=False))


def _kept(old: Path, platform: Path) -> Path:
    # the same path on Linux when XDG_* are unset; else an existing old folder wins
    return old if old.is_dir() else platform

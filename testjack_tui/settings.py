"""The console's remembered choices (theme, analyst name, resuming audits) in a small JSON file.

The file lives in the settings folder of ``environment.config_dir`` (``$TESTJACK_CONFIG_DIR`` when
set, as tests do, else the platform's, ``~/.config/testjack/`` on Linux). A missing or unreadable
file means defaults, never an error.

The analyst's name, stored on every ruling, is set once: ``--by NAME`` on the command line wins,
then ``$TESTJACK_ANALYST``, then the name saved in the settings, then the login name.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from testjack_tui.environment import Variables, config_dir, read

DEFAULT_THEME = "testjack-dark"


def settings_path() -> Path:
    return config_dir() / "settings.json"


@dataclass
class Settings:
    theme: str = DEFAULT_THEME
    analyst: str = ""  # name stored on rulings; defaults to the login name
    resume_audits: bool = False  # resume an interrupted audit by itself when the console opens

    @classmethod
    def load(cls) -> "Settings":
        try:
            data = json.loads(settings_path().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        defaults = cls()
        known = {k: v for k, v in data.items()
                 if k in cls.__dataclass_fields__ and type(v) is type(getattr(defaults, k))}
        return cls(**known)

    def save(self) -> None:
        path = settings_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)

    def analyst_name(self, given: str | None = None) -> str:
        """Who rules: ``given`` (``--by``), else $TESTJACK_ANALYST, else the saved name, else the login."""
        return analyst_name(given, self.analyst)

    def analyst_source(self, given: str | None = None) -> str:
        """Where the name comes from, in words, for the settings form."""
        if given:
            return "--by on the command line"
        if read(Variables).analyst:
            return "$TESTJACK_ANALYST"
        return "the settings" if self.analyst else "the login name"


def analyst_name(given: str | None = None, saved: str = "") -> str:
    """The analyst's name: ``--by``, then $TESTJACK_ANALYST, then the saved name, then $USER."""
    variables = read(Variables)
    return (given or variables.analyst or saved or variables.login or "analyst").strip()

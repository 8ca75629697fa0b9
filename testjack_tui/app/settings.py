"""The console's remembered choices (theme, analyst name) in a small JSON file.

The file lives in ``$TESTJACK_CONFIG_DIR`` when set (tests point it at a temporary directory),
else in ``~/.config/testjack/``. A missing or unreadable file means defaults, never an error.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

DEFAULT_THEME = "testjack-dark"


def config_dir() -> Path:
    env = os.environ.get("TESTJACK_CONFIG_DIR")
    return Path(env) if env else Path.home() / ".config" / "testjack"


def settings_path() -> Path:
    return config_dir() / "settings.json"


@dataclass
class Settings:
    theme: str = DEFAULT_THEME
    analyst: str = ""  # name stored on rulings; defaults to the login name

    @classmethod
    def load(cls) -> "Settings":
        try:
            data = json.loads(settings_path().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__ and isinstance(v, str)}
        return cls(**known)

    def save(self) -> None:
        path = settings_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)

    def analyst_name(self) -> str:
        return self.analyst or os.environ.get("USER") or "analyst"

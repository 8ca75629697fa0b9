"""The input domain of a task: what P (and the inputs it and T0 show) allow a call to take.

``build_domain`` reads it from the task; ``ground`` places a witness in it; ``admits`` tells an
author whether a probe input is inside it. See DESIGN.md, "grounding".
"""

from testjack_tui.domain.build import build_domain
from testjack_tui.domain.grounding import admits, ground

__all__ = ["admits", "build_domain", "ground"]

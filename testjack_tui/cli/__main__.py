"""python -m testjack_tui.cli"""

import sys

from testjack_tui.cli import main

sys.exit(main())

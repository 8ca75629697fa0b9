"""Reading Python as written: the ground that the domain model, the authors and the audit share.

``signatures`` (the functions a patch adds or changes, their parameters, how a test reaches them),
``calls`` (calls with literal arguments, read from tests), ``examples`` (the calls and results a
prompt states), ``annotations`` (a parameter's annotation as a Python type). Nothing here runs code
or knows about authors, witnesses or verdicts: only ``ast``, ``unidiff`` and text.
"""

"""What an analyst's review is made of, without any screen: the engine under the console.

``checklist`` (a trial's requirements as rows with their witnesses and states) and
``checklist_calls`` (the calls a witness makes, for its row), ``sidebyside`` (a trial's code beside
the reference's), ``manual`` (an analyst's own witness: certified on the reference, run on every
trial), ``lifecycle`` (audits started, resumed and finished, as the console lists them). The
console (``testjack_tui.app``) shows these; scripts and tests use them headless.
"""

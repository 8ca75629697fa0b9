"""Screens of the review console: runs, trials, one trial, rulings, manual witnesses, modal forms."""

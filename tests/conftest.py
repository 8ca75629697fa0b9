"""Test-suite wide settings."""

# Fixture files are benchmark inputs (some are test files of fake tasks), not tests of ours.
collect_ignore = ["fixtures"]

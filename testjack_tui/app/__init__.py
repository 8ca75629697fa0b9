"""The Textual review console: screens, widgets, background workers. Entry point: ``main.run_console``."""

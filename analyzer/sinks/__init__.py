"""Where a verdict goes: the terminal (text) or a program (JSON)."""

"""Acting on verdicts: the restart policy and its history, `watch` and `ha-run`."""

"""Rules as data: the signature, format and cascade files, their loader and lints, the
taxonomy, and the multi-pattern automaton and matcher that find them in blocks."""

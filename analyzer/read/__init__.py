"""Reading: sources, archives, blocks, lines, timestamps, redaction and worker processes.

Everything that turns bytes on disk, in an archive or on stdin into log lines: where a
file is, how it is opened and decompressed, how it is cut into blocks, how a line is
cleaned, stamped and redacted, and how a large job is read by several processes."""

"""The job: who logged each line (rank, host, device), the job's span and attempts, each
rank's timeline, the evidence collector, Flight Recorder dumps and stack dumps."""

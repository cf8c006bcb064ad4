"""Deciding: the culprit rules, the verdict and its recovery, and HA readiness."""

"""Many jobs: the batch run (local or Spark), its row schema and the HTML report."""

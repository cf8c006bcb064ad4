# torchrun entry point with a short exit barrier (default is 300 s)
import os, sys
import torch.distributed.elastic.agent.server.api as _api
_orig = _api.SimpleElasticAgent.__init__
def _init(self, *a, **k):
    _orig(self, *a, **k)
    self._exit_barrier_timeout = float(os.environ.get("EXIT_BARRIER_S", "10"))
_api.SimpleElasticAgent.__init__ = _init
from torch.distributed.run import main
if __name__ == "__main__":
    sys.exit(main())

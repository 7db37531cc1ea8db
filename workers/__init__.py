"""What runs matches on a worker host: sandboxes, the match runner, the bots' limits.

Plain Python, no Flask and no database. The names `ladder` needs are here;
the modules behind them each do one job:

- `contract`: what the ladder and the runner hand each other: `Job` (with its
  `JobSeat`s) in, `Outcome` out, `SeatStatus`, and the errors that refuse them;
- `match`: plays one match between sandboxed bots and returns its outcome;
- `table`: a live table, a match with people in some seats (`TABLES.md`);
- `rerun`: runs one bot again on the views one seat had in a recorded match;
- `info`: what a bot is told at its start (`setup(info)`), one shape in every mode;
- `protocol`: the wire protocol, runner side;
- `sandbox`: the runtime on this machine and bwrap's command line;
- `runtime_files`: the files a sandbox sees, in folders of each slot's own, pinned in memory;
- `slots`, `pool`: long-lived sandboxes and the per-process pool of them;
- `zygote`: the warm interpreter inside each sandbox that forks the bots;
- `bot_process`: talking to, pausing and ending one bot;
- `stall`: telling a stalled host from a slow bot (`HostStalled`, never a bot's fault);
- `cgroups`, `seccomp`, `claims`, `cpus`, `procfs`: kernel tools they use;
- `staging`, `limits`, `fallback`: bot files, limits, and the fallback policy;
- `bot_cache`: this host's copies of stored bot files, by content hash.

`SANDBOX.md` says how the seats of one match are kept from talking to each other.
"""

from workers.bot_cache import BotCache
from workers.cgroups import isolation
from workers.contract import (
    BadBotFile,
    BadJob,
    BadOutcome,
    Job,
    JobSeat,
    Outcome,
    SeatStatus,
)
from workers.limits import Limits
from workers.match import run_job, run_match
from workers.pool import close_pools
from workers.rerun import rerun
from workers.sandbox import SandboxUnavailable
from workers.staging import BotSource, house_bots, house_file, resolve
from workers.stall import HostStalled, retry_stalled
from workers.table import HumanAnswer, Move, OutOfTime, Resign, run_table

__all__ = [
    "BadBotFile",
    "BadJob",
    "BadOutcome",
    "BotCache",
    "BotSource",
    "HostStalled",
    "HumanAnswer",
    "Job",
    "JobSeat",
    "Limits",
    "Move",
    "OutOfTime",
    "Outcome",
    "Resign",
    "SandboxUnavailable",
    "SeatStatus",
    "close_pools",
    "house_bots",
    "house_file",
    "isolation",
    "rerun",
    "resolve",
    "retry_stalled",
    "run_job",
    "run_match",
    "run_table",
]

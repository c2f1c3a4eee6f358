"""vtrim-ray: a video corpus split into clips on a Ray cluster, one task per input calling the `vtrim` binary.

`run(...)` (and the `vtrim-ray` command) takes inputs, a job (split, thumbs, storyboard or cut) and an output folder;
every input gets a folder of its own with its clips, posters and `manifest.jsonl`; the merged `manifest.jsonl` sits at
the top. Ray retries a task whose node died (bounded); the retry skips every clip already written and removes the dead
attempt's temporaries. `run_input` is the task itself, runnable without Ray.
"""

from .jobs import Job
from .task import run_input
from .driver import run

__all__ = ["Job", "run", "run_input"]
__version__ = "0.1.0"

"""What a run does to each input, as the `vtrim` command lines of its task (pure: nothing is run here)."""

import dataclasses
import os

KINDS = ("split", "thumbs", "storyboard", "cut")


@dataclasses.dataclass(frozen=True)
class Job:
    """One run's work per input.

    kind: split (each range to a clip of its own, plus a poster), thumbs, storyboard or cut (any `vtrim cut`).
    split ranges: `scenes` (vtrim propose's scene cuts, `scenes_threshold` and `min_scene_seconds` tuning them),
    `stride_seconds` (fixed strides) or `cut_list` (one cut list for every input). `mode`: vtrim's cut mode (smart by
    default: frame-exact, only the edges re-encoded). `extra`: more vtrim arguments. `cpus`: the CPUs each task asks of
    Ray, which is also what vtrim uses for its threads (`VTRIM_CORES`).
    """

    kind: str = "split"
    scenes: bool = True
    scenes_threshold: float = None
    min_scene_seconds: float = None
    stride_seconds: float = None
    cut_list: str = None
    mode: str = "smart"
    posters: bool = True
    poster_height: int = 180
    storyboard: str = "jellyfin"
    extra: tuple = ()
    cpus: int = 1
    vtrim: str = "vtrim"

    def problem(self):
        """Why this job cannot run (nil when it can); checked before any task starts."""
        if self.kind not in KINDS:
            return f"the job is one of {', '.join(KINDS)}, not {self.kind}"
        if self.kind == "split":
            given = [self.stride_seconds is not None, self.cut_list is not None]
            if sum(given) > 1:
                return "give one of scenes, a stride or a cut list"
            if self.stride_seconds is not None and not (0.1 <= self.stride_seconds <= 86400):
                return "the stride is 0.1 to 86400 seconds"
            if self.cut_list is not None and not os.path.isfile(self.cut_list):
                return f"no cut list at {self.cut_list}"
        if not (1 <= self.cpus <= 4096):
            return "cpus is 1 to 4096"
        return None

    def main_command(self, item, folder, strides_list=None):
        """vtrim's command line for the input's main step: its outputs go to `folder`, existing ones skipped, one JSON
        line per output on stdout."""
        common = ["--output-dir", folder, "--skip-existing", "--json", "--quiet", "-j", "1"]
        if self.kind == "split":
            if strides_list is not None:
                ranges = ["--list", strides_list]
            elif self.cut_list is not None:
                ranges = ["--list", self.cut_list]
            else:
                kinds = "scenes" if self.scenes_threshold is None else f"scenes={self.scenes_threshold:g}"
                ranges = ["--propose", kinds]
                if self.min_scene_seconds is not None:
                    ranges += ["--min-scene", f"{self.min_scene_seconds:g}"]
            return [self.vtrim, "cut", item, *ranges, "--mode", self.mode, *common, *self.extra]
        if self.kind == "cut":
            return [self.vtrim, "cut", item, *self.extra, *common]
        if self.kind == "storyboard":
            return [self.vtrim, "thumbs", item, "--storyboard", self.storyboard, *common, *self.extra]
        return [self.vtrim, "thumbs", item, *common, *self.extra]

    def writes_clips(self):
        return self.kind in ("split", "cut")

    def poster_command(self, clips, folder):
        """One poster per clip (the frame at its middle), `<clip stem>.jpg` in `folder`."""
        return [self.vtrim, "thumbs", *clips, "--count", "1", "--height", str(self.poster_height), "--output-dir", folder,
                "--name", "{stem}.jpg", "--skip-existing", "--json", "--quiet", "-j", "1"]


def stride_rows(duration_seconds, stride_seconds):
    """Cut-list rows (start, end) covering [0, duration) in strides; a last piece under a quarter stride joins the one
    before it (a sliver is no clip)."""
    if not (duration_seconds > 0 and stride_seconds > 0):
        return []
    bounds, start = [], 0.0
    while duration_seconds - start > 1e-6:
        end = min(duration_seconds, start + stride_seconds)
        bounds.append([start, end])
        start = end
    if len(bounds) > 1 and bounds[-1][1] - bounds[-1][0] < stride_seconds / 4:
        last = bounds.pop()
        bounds[-1][1] = last[1]
    return [(round(a, 6), round(b, 6)) for a, b in bounds]

import MediaEngine

/// What `vtrim cut` is made with when the user does not say, as the command line's help states it — the engine's one
/// rule (`EditDefaults`), which the API and the page follow too.
public enum CutDefaults {
    /// Encoder speed preset (x264 names).
    public static let preset = EditDefaults.preset

    /// `--mode`'s help: the modes, and the default the rule gives.
    public static let modeHelp = "copy, keyframe, exact or smart (default: copy for a cut; a join — --keep, --remove, --join — "
        + "is smart wherever smart cuts are written for its video: \(EditDefaults.smartSummary); else copy (exact where the container cannot hold the video), saying why)."
}

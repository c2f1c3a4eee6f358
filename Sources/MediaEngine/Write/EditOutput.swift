/// Writing an edit: the containers it can be written to, and the one entry point that executes a plan.
public enum EditOutput {
    /// The containers a cut is written to: those whose times vtrim can plan and read back exactly.
    public static let containers = ["mp4", "mov", "ipod", "3gp", "3g2", "matroska", "webm", "mpegts", "avi"]
    public static let extensions = ["mp4", "mov", "m4v", "m4a", "3gp", "3g2", "mkv", "webm", "ts", "m2ts", "mts", "avi"]
        + SoundContainer.extensions.filter { $0 != "m4a" }

    /// Writes `plan` of the file at `path` into `temporaryPath` (the muxer chosen from `outputName`): its ranges
    /// one after another into one file, opening the file afresh (the plan is all the writer needs). `shouldStop` is
    /// checked as packets go by (an interrupt); `progress` gets the fraction written. `edgeFrames`: pictures a scene pass
    /// of the same file kept, which the smart heads they cover encode rather than decoding them again.
    public static func write(_ plan: EditPlan, path: String, temporaryPath: String, outputName: String, edgeFrames: EdgeFrames? = nil,
                             shouldStop: @escaping @Sendable () -> Bool = { false },
                             progress: (@Sendable (Double) -> Void)? = nil) throws(MediaError) -> CutRun {
        try StageTimes.measure("write") { () throws(MediaError) -> CutRun in
            _ = try InputCheck.regularFile(path)
            let input = try InputFile(path: path)
            let writer = EditWriter(input: input, plan: plan, path: path, temporaryPath: temporaryPath, outputName: outputName,
                                    edgeFrames: edgeFrames, shouldStop: shouldStop, progress: progress)
            return try writer.run()
        }
    }

    /// Whether a cut can be written to this output name (by its extension's muxer).
    public static func canWrite(fileName: String) -> Bool {
        SoundContainer(fileName: fileName) != nil || OutputFormat(fileName: fileName).map { containers.contains($0.name) } ?? false
    }
}

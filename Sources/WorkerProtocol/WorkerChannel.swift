import Foundation

/// The two ends of a worker: its descriptors and its scratch folder.
public enum WorkerChannel {
    public static let requestDescriptor: Int32 = 3
    public static let replyDescriptor: Int32 = 4
    /// The status a worker exits with when it could not start (EX_TEMPFAIL): the server answers "unavailable", and
    /// blames no file for it.
    public static let cannotStartStatus: Int32 = 75

    /// The worker's own scratch folder (tiles are rendered there, then sent as bytes); the server removes
    /// it when the worker dies.
    public static func scratchFolder(pid: Int32) -> String {
        (NSTemporaryDirectory() as NSString).appendingPathComponent("vtrim-worker-\(pid)")
    }
}

/// Writes to a pipe, whole (a pipe takes a large write in parts); false once the reader is gone.
public enum PipeWrite {
    public static func all(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            guard var pointer = raw.baseAddress else { return true }
            var left = raw.count
            while left > 0 {
                let written = write(descriptor, pointer, left)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                left -= written
                pointer += written
            }
            return true
        }
    }
}

import CAV

/// Frame-sized blocks go back to the system when freed. Each smart edge decodes and encodes on a thread of its
/// own, so glibc gives it an arena of its own; with glibc's default (a mmap threshold that rises to the largest
/// block freed), a finished edge's frames stay in its arena, where the next edge — another thread — cannot reuse
/// them, and a 10-range 1080p join peaked ~90 MiB higher than its two edges in flight need (measured: 437 MiB with
/// the default, 373 MiB with a fixed 4 MiB threshold, same time within noise). Blocks under the threshold (packets,
/// contexts) stay in the arenas as before.
enum LargeBlockReturn {
    /// Process-wide; set once, before the first edge starts.
    static let installed: Bool = cav_return_blocks_from(4 << 20) == 1
}

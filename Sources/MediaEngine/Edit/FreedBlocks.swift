import CAV

/// Smart edges encode one after another on the edit's edge threads (`EdgeSlots`), each encoder allocating the same
/// frame-sized blocks (x264 asks for 2 MiB huge pages for them). glibc's defaults give a freed large block back to
/// the system, so every encoder had the kernel zero fresh pages: a 10-range 1080p join spent 1.4–2.0 s of system
/// time doing so. While a smart edit runs, blocks up to 32 MiB come from the threads' arenas and stay there when
/// freed (`kept`: no mmap of their own, no trimming), so the next encoder on that thread reuses them (measured:
/// system time 0.8–1.2 s, wall 0.3–0.6 s shorter). Once the edit is written, `release` hands what the arenas hold
/// back to the system (a `vtrim serve` worker process lives on between edits).
enum FreedBlocks {
    /// Process-wide; set once, before the first edge starts.
    static let kept: Bool = cav_keep_freed_blocks(32 << 20) == 1

    static func release() { cav_release_freed_blocks() }
}

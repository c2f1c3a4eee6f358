#ifndef VTRIM_CFILESYSTEM_H
#define VTRIM_CFILESYSTEM_H

/// renameat2(2), which Swift's Glibc module does not declare (glibc declares it only under _GNU_SOURCE).
/// Each returns 0, or -1 with errno set (EINVAL or ENOSYS where the file system or kernel has no such rename).

/// Swaps `first` and `second` atomically (RENAME_EXCHANGE): both must exist.
int vtrim_rename_exchange(const char *first, const char *second);

/// Renames `from` to `to` unless `to` exists (RENAME_NOREPLACE: EEXIST then).
int vtrim_rename_noreplace(const char *from, const char *to);

#endif

#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include "CFileSystem.h"

int vtrim_rename_exchange(const char *first, const char *second) {
    return renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE);
}

int vtrim_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

#ifndef VTRIM_CPROCESS_H
#define VTRIM_CPROCESS_H

/// prctl(PR_SET_PDEATHSIG, signal): the kernel sends `signal` to this process when the thread that spawned it
/// exits (prctl is variadic, which Swift cannot call). Returns 0, or -1 with errno set.
int vtrim_die_with_parent(int signal);

#endif

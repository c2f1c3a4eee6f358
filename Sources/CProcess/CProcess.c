#include "CProcess.h"

#include <sys/prctl.h>

int vtrim_die_with_parent(int signal) {
  return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}

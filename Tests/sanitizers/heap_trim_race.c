// Eight threads give the heap back at the same moment, as a join's head and tail edges do when they end together.
// Under AddressSanitizer glibc's arenas are set up by the first malloc_trim, racily: a bare malloc_trim here crashed
// 27 of 200 runs (CI saw it in SmartEdge). scripts/sanitizers runs this against cav.c's cav_trim_heap.
#include <pthread.h>
#include "CAV.h"

enum { THREADS = 8 };
static pthread_barrier_t all_ready;

static void *trim(void *unused) {
    (void)unused;
    pthread_barrier_wait(&all_ready);
    cav_trim_heap();
    return NULL;
}

int main(void) {
    pthread_t threads[THREADS];
    pthread_barrier_init(&all_ready, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, trim, NULL);
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    return 0;
}

/* The driver: a loop of nondeterministic enqueues and dequeues, then a check of the
 * queue's invariant. */
#include "queue.h"

int nondet_int(void);

void check_invariant(void)
{
    __CPROVER_assert(queue_size() <= QUEUE_CAPACITY, "the queue holds at most its capacity");
}

int main(void)
{
    for (;;) {
        int op = nondet_int();
        int value;
        if (op == 0)
            enqueue(nondet_int() & 7);
        else if (op == 1)
            dequeue(&value);
        else
            break;
    }
    check_invariant();
    return stats_mean();
}

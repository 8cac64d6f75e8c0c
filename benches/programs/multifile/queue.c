/* The queue: a ring buffer of QUEUE_CAPACITY slots. enqueue() tests for a full queue one
 * element too late (size > capacity), so the queue can hold one element more than it has
 * slots and overwrite its oldest element. */
#include "queue.h"

static int slots[QUEUE_CAPACITY];
static int head;
static int size;

int enqueue(int value)
{
    if (size > QUEUE_CAPACITY) { /* the bug: size >= QUEUE_CAPACITY */
        stats_overflow();
        return -1;
    }
    slots[(head + size) % QUEUE_CAPACITY] = value;
    size++;
    return 0;
}

int dequeue(int *value)
{
    if (size == 0) {
        stats_underflow();
        return -1;
    }
    *value = slots[head];
    head = (head + 1) % QUEUE_CAPACITY;
    size--;
    stats_record(*value);
    return 0;
}

int queue_size(void) { return size; }

/* Statistics of the values leaving the queue. */
#include "queue.h"

static int count;
static int total;
static int overflows;
static int underflows;

void stats_record(int value)
{
    count++;
    total += value;
}

void stats_overflow(void) { overflows++; }

void stats_underflow(void) { underflows++; }

int stats_mean(void) { return count == 0 ? 0 : total / count; }

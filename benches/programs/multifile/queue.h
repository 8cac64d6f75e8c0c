/* mergelens benchmark corpus: a bounded ring-buffer queue and its statistics, a library of
 * two files (queue.c, stats.c) with a driver (main.c). */
#ifndef CORPUS_QUEUE_H
#define CORPUS_QUEUE_H

#define QUEUE_CAPACITY 3

int enqueue(int value);
int dequeue(int *value);
int queue_size(void);

void stats_record(int value);
void stats_overflow(void);
void stats_underflow(void);
int stats_mean(void);

#endif

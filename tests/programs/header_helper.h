/* A project header that defines a helper: its calls are the program's behaviour too. */
static inline int helper(int x) { return x + 1; }

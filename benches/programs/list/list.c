/* mergelens benchmark corpus: a singly linked list in a node pool (links are indices),
 * driven by a loop of nondeterministic operations. pop() forgets that the list may be
 * empty when it updates the length, so check() fails once more elements were popped than
 * pushed. */
int nondet_int(void);

#define POOL 16
#define NIL (-1)

static int value[POOL];
static int next[POOL];
static int used;
static int head = NIL;
static int length;

void check(void);

void push(int v)
{
    if (used >= POOL)
        return;
    int n = used++;
    value[n] = v;
    next[n] = head;
    head = n;
    length++;
}

int pop(void)
{
    int n = head;
    length--; /* the bug: also when the list is empty */
    if (n == NIL)
        return -1;
    head = next[n];
    return value[n];
}

void reverse(void)
{
    int prev = NIL;
    int cur = head;
    while (cur != NIL) {
        int following = next[cur];
        next[cur] = prev;
        prev = cur;
        cur = following;
    }
    head = prev;
}

void check(void)
{
    int c = 0;
    for (int n = head; n != NIL; n = next[n])
        c++;
    __CPROVER_assert(c == length, "the length matches the list");
}

int main(void)
{
    for (int i = 0;; i++) {
        int op = nondet_int();
        if (op == 0)
            push(i);
        else if (op == 1)
            pop();
        else if (op == 2)
            reverse();
        else
            break;
    }
    check();
    return 0;
}

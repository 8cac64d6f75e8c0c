/* mergelens benchmark corpus: a binary search tree in a node pool (children are
 * indices), driven by a loop of nondeterministic insertions and lookups. insert() counts
 * a key that is already in the tree as a new node, so check() fails once a key is inserted
 * twice. */
int nondet_int(void);

#define POOL 16
#define NIL (-1)

static int key[POOL];
static int left[POOL];
static int right[POOL];
static int used;
static int root = NIL;
static int size;

void check(void);

static int new_node(int k)
{
    int n = used++;
    key[n] = k;
    left[n] = NIL;
    right[n] = NIL;
    return n;
}

void insert(int k)
{
    if (used >= POOL)
        return;
    size++; /* the bug: also for a key already in the tree */
    if (root == NIL) {
        root = new_node(k);
        return;
    }
    int n = root;
    for (;;) {
        if (k == key[n])
            return;
        int *child = k < key[n] ? &left[n] : &right[n];
        if (*child == NIL) {
            *child = new_node(k);
            return;
        }
        n = *child;
    }
}

int lookup(int k)
{
    int n = root;
    while (n != NIL) {
        if (k == key[n])
            return 1;
        n = k < key[n] ? left[n] : right[n];
    }
    return 0;
}

void check(void)
{
    __CPROVER_assert(size == used, "every inserted key is one node");
}

int main(void)
{
    for (;;) {
        int op = nondet_int();
        int k = nondet_int() & 3;
        if (op == 0)
            insert(k);
        else if (op == 1)
            lookup(k);
        else
            break;
    }
    check();
    return 0;
}

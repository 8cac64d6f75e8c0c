/* mergelens benchmark corpus: insertion sort of a nondeterministic array of at most
 * MAX elements. Each element moved one place right is a `shift`, each element put in its
 * place a `place`. The inner loop stops one element early (j > 1 instead of j > 0), so
 * the first element is never compared with the others and is_sorted() can fail. */
int nondet_int(void);
unsigned nondet_unsigned(void);

#define MAX 8

static int a[MAX];

void shift(int j) { a[j] = a[j - 1]; }

void place(int j, int key) { a[j] = key; }

void is_sorted(int n)
{
    int ok = 1;
    for (int i = 1; i < n; i++)
        if (a[i - 1] > a[i])
            ok = 0;
    __CPROVER_assert(ok, "the array is sorted");
}

void insertion_sort(int n)
{
    for (int i = 1; i < n; i++) {
        int key = a[i];
        int j = i;
        while (j > 1 && a[j - 1] > key) { /* the bug: j > 0 */
            shift(j);
            j--;
        }
        place(j, key);
    }
}

int main(void)
{
    unsigned n = nondet_unsigned();
    __CPROVER_assume(n <= MAX);
    for (unsigned i = 0; i < n; i++)
        a[i] = nondet_int() % 8;
    insertion_sort((int)n);
    is_sorted((int)n);
    return 0;
}

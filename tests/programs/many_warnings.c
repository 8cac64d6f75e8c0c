/* Six places the front end cannot see through: four calls through function pointers and two
   gotos. Learning it is quick; what the test looks at is how the warnings are told. */

int nondet_int(void);

void on_even(void) {}

void on_odd(void) {}

void finish(void) {}

int main(void)
{
    void (*first)(void) = nondet_int() ? on_odd : on_even;
    void (*second)(void) = on_even;
    first();
    second();
    if (nondet_int())
        goto done;
    first();
    second();
    goto done;
done:
    finish();
    return 0;
}

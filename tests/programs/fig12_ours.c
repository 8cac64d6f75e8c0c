/* Fig. 12(b) of Chockler et al., JAIR 2020: branch A moves the call of funcB into funcZ. */

void funcA(void) {}

void funcB(void) {}

void funcZ(void)
{
    funcB();
}

int main(void)
{
    funcA();
    funcZ();
    return 0;
}

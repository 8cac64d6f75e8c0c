//! The merge of Fig. 12 of Chockler, Kesseli, Kroening and Strichman, *Learning the
//! Language of Software Errors* (JAIR 2020, Sec. 5), as three revisions of one file: what
//! `mergelens demo` commits to a throwaway repository, and what the end-to-end tests review
//! (`tests/common` reads this file as a module of its own).
//!
//! The base's `main` calls `funcA()` then `funcB()`; ours moves the call of `funcB()` into a
//! new `funcZ()`; theirs replaces it with `if (guard) funcB(); else funcC();`. git merges the
//! two without a conflict, and theirs' choice lands inside ours' `funcZ()`.

/// The base: `main` calls funcA, then funcB.
pub(crate) const BASE: &str =
    "/* A request server: the merge base of Fig. 12 (Chockler et al., JAIR 2020). */

void funcA(void) {}

void funcB(void) {}

int main(void)
{
    funcA();
    /* serve the request */
    funcB();
}
";

/// Branch A (ours, on `main`): serving moves into funcZ.
pub(crate) const OURS: &str =
    "/* A request server: the merge base of Fig. 12 (Chockler et al., JAIR 2020). */

void funcA(void) {}

void funcB(void) {}

void funcZ(void);

int main(void)
{
    funcA();
    funcZ();
}

void funcZ(void)
{
    /* serve the request */
    funcB();
}
";

/// Branch B (theirs, `feature`): some requests are served by funcC.
pub(crate) const THEIRS: &str =
    "/* A request server: the merge base of Fig. 12 (Chockler et al., JAIR 2020). */
int nondet_int(void);
void funcC(void) {}

void funcA(void) {}

void funcB(void) {}

int main(void)
{
    funcA();
    /* serve the request */
    if (nondet_int())
        funcB();
    else
        funcC();
}
";

/// The path of the program in the demo repository.
pub(crate) const PROGRAM: &str = "src/server.c";

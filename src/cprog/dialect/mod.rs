//! C that gcc accepts and tree-sitter-c cannot parse: pre-C99 function definitions,
//! rewritten to prototype form in the preprocessed text before it is parsed, and GNU and
//! C11 syntax rewritten in the parser's copy of the text only.
//!
//! Key items: [`rewrite`], applied to a [`Preprocessed`] unit, [`blank_for_parser`] and
//! [`computed_goto`].
//!
//! [`blank_for_parser`] rewrites, in the text the parser reads and not in the text the
//! compiler gets, what tree-sitter-c cannot read where gcc allows it. Every rewrite keeps
//! the length and the line breaks of what it replaces, because the instrumentation's edits
//! are byte offsets into the compiler's text; an expression read in place of another spans
//! the same bytes (`(0)` from the first byte of the name to the last `)`), since edits go
//! at the ends of expressions and statements. A rewrite may only lose what no event
//! depends on: the parser's copy decides where events are, the compiler's copy what runs.
//! The forms:
//!
//! * `__attribute__((...))` is blanked (e.g. between a declarator and its initialiser), and
//!   so is the `... HIGH` of a GNU case range (`case 1 ... 3:` is read as `case 1:`).
//! * Type names as arguments, which only a built-in takes: `__builtin_va_arg(ap, char *)`
//!   is read as `(ap, 0)` (the list is still evaluated, nothing is called);
//!   `__builtin_offsetof(struct s, m)` and `__builtin_types_compatible_p(T1, T2)` as the
//!   constant `(0)` (an offsetof designator that could call a function stays an expression).
//! * `typeof(expr)`: tree-sitter-c only reads `typeof(type name)`, so an argument that is
//!   no type name becomes the placeholder name `_`; typeof does not evaluate it.
//! * `_Static_assert(...)` is blanked (it runs nothing), `_Thread_local` is read under the
//!   spelling `thread_local`, the specifier `_Atomic(T)` as the qualifier `_Atomic T` (not
//!   for pointer or function types, where the two differ), the assembler name of a
//!   declarator (`register int r asm("r0") = 0;`) is blanked.
//! * Computed gotos: `goto *p;` is read as `*p;` and `&&label` as `& label`. The control-flow
//!   model then misses the jump, so the driver asks [`computed_goto`] and, like for
//!   `longjmp`, tells the pre-check to accept any word.
//!
//! The driver uses [`blank_for_parser`] only when the plain parse has errors and it removes
//! some. What the parser's copy holds in place of a type reaches the compiler only where
//! the front end copies a type out of it (the entry's return type and parameters for the
//! generated harness); `_` would then fail to compile rather than change a type silently.
//!
//! Two pre-C99 forms are rewritten, at file scope only:
//!
//! * K&R definitions: `int f(a, b) int a; char *b; { ... }` becomes
//!   `int f(int a, char *b) { ... }`; a parameter without a declaration is `int`.
//! * Implicit `int`: `main() { ... }` and `static f(x) int x; { ... }` get `int` before
//!   the name.
//!
//! The rewrite keeps every line break where it was (the declarations' lines become blank,
//! the parameter list keeps the header's line breaks), so the line markers, the rows of
//! [`Preprocessed`] and therefore every file:line the user sees stay right, and it edits
//! `text` and `parse_text` alike, which must stay aligned byte for byte. It declines
//! anything it is not sure of: a region holding a directive line, a parameter list that is
//! not only identifiers, declarations that name no parameter. A K&R definition needs
//! declarations between `)` and `{`; without them (`int f(a) { ... }`) `a` could as well be
//! a type name, which tree-sitter reads as such.
//!
//! One difference remains: a K&R parameter of type `char`, `short` or `float` is passed
//! promoted (as `int`, `double`) and converted on entry, a prototype's is not. Calls agree
//! whenever the argument fits the parameter's type, which is what bounded verification of
//! such code asks in practice.
//!
//! [`Preprocessed`]: super::preprocess::Preprocessed

mod gnu;
mod knr;
mod tokens;

pub(crate) use gnu::{blank_for_parser, computed_goto};
pub(crate) use knr::rewrite;

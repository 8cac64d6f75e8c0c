//! A small tokenizer library with no `main`, in two releases, and a harness for it that
//! lives outside the history: what the harness tests review.

use std::collections::BTreeSet;

use serde_json::Value;

/// The library's header: a tokenizer over a buffer and its length.
pub const HEADER: &str = "int count_tokens(const char *s, unsigned n);\n";

/// 1.0: every `a` is a token, and the count is reported once at the end.
pub const V1: &str = r#"#include "tok.h"

void token(void) {}
void report(void) {}

int count_tokens(const char *s, unsigned n)
{
    int count = 0;
    for (unsigned i = 0; i < n; i++) {
        if (s[i] == 'a') {
            token();
            count++;
        }
    }
    report();
    return count;
}
"#;

/// 2.0: an empty buffer is an error and reports nothing.
pub const V2: &str = r#"#include "tok.h"

void token(void) {}
void report(void) {}
void empty(void) {}

int count_tokens(const char *s, unsigned n)
{
    int count = 0;
    if (n == 0) {
        empty();
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        if (s[i] == 'a') {
            token();
            count++;
        }
    }
    report();
    return count;
}
"#;

/// The harness: a bounded nondeterministic buffer. Its `main` and `fill` are no letters.
pub const HARNESS: &str = r#"#include "tok.h"

char nondet_char(void);
unsigned nondet_uint(void);

static void fill(char *buf, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        buf[i] = nondet_char();
}

int main(void)
{
    char buf[2];
    unsigned n = nondet_uint();
    if (n > 2)
        return 0;
    fill(buf, n);
    count_tokens(buf, n);
    return 0;
}
"#;

/// The example words of a language of the document, as a set.
pub fn words(language: &Value) -> BTreeSet<String> {
    super::example_words(language).into_iter().collect()
}

pub fn set(words: &[&str]) -> BTreeSet<String> {
    words.iter().map(|w| w.to_string()).collect()
}

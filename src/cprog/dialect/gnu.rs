//! GNU and C11 syntax that tree-sitter-c cannot read, rewritten in the parser's copy of the
//! text only (see [`super`] for what each form becomes and why that is safe).

use super::tokens::{Token, is_identifier, tokens};

/// Words that qualify a pointer in a type name: `char *const`.
const POINTER_QUALIFIERS: [&str; 5] = [
    "const",
    "volatile",
    "restrict",
    "__restrict",
    "__restrict__",
];

/// `src` with the forms of the module documentation made readable; line breaks and byte
/// offsets unchanged.
pub(crate) fn blank_for_parser(src: &str) -> String {
    let mut b = Blanker {
        src,
        toks: tokens(src),
        bytes: src.as_bytes().to_vec(),
        touched: vec![false; src.len()],
    };
    let mut i = 0;
    while i < b.toks.len() {
        // A token inside a region already rewritten belongs to that rewrite.
        if !b.touched[b.toks[i].start] {
            b.token(i);
        }
        i += 1;
    }
    String::from_utf8(b.bytes).unwrap_or_else(|_| src.to_string())
}

/// Whether the text jumps to a computed address (`goto *p;`): the parser's copy reads it as
/// the expression statement `*p;`, so the control-flow model must not be trusted.
pub(crate) fn computed_goto(src: &str) -> bool {
    let toks = tokens(src);
    toks.windows(2)
        .any(|w| &src[w[0].start..w[0].end] == "goto" && &src[w[1].start..w[1].end] == "*")
}

struct Blanker<'s> {
    src: &'s str,
    toks: Vec<Token>,
    bytes: Vec<u8>,
    touched: Vec<bool>,
}

impl Blanker<'_> {
    /// The text of token `i`, empty past the end.
    fn t(&self, i: usize) -> &str {
        self.toks.get(i).map_or("", |k| &self.src[k.start..k.end])
    }

    /// The `)` matching the `(` at token `open`.
    fn close(&self, open: usize) -> Option<usize> {
        let mut depth = 0usize;
        for j in open..self.toks.len() {
            match self.t(j) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return (self.t(j) == ")").then_some(j);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The commas between tokens `open` and `close` outside any nested brackets.
    fn commas(&self, open: usize, close: usize) -> Vec<usize> {
        let mut depth = 0usize;
        let mut out = Vec::new();
        for j in open + 1..close {
            match self.t(j) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                "," if depth == 0 => out.push(j),
                _ => {}
            }
        }
        out
    }

    /// Bytes `from..to` as spaces (line breaks kept) with `with` at `from`. Declined, with
    /// `false`, where a byte is not ASCII (a character cannot be halved) or `with` would
    /// cover a line break.
    fn replace(&mut self, from: usize, to: usize, with: &str) -> bool {
        let region = &self.src[from..to];
        if !region.is_ascii() || region.get(..with.len()).is_none_or(|r| r.contains('\n')) {
            return false;
        }
        for k in from..to {
            if self.bytes[k] != b'\n' {
                self.bytes[k] = b' ';
            }
            self.touched[k] = true;
        }
        self.bytes[from..from + with.len()].copy_from_slice(with.as_bytes());
        true
    }

    /// Tokens `first..=last` as spaces, or as `with` and spaces.
    fn tokens_as(&mut self, first: usize, last: usize, with: &str) -> bool {
        self.replace(self.toks[first].start, self.toks[last].end, with)
    }

    fn token(&mut self, i: usize) {
        let paren = self.t(i + 1) == "(";
        match self.t(i) {
            "__attribute__" | "__attribute" if paren => {
                if let Some(close) = self.close(i + 1) {
                    self.tokens_as(i, close, "");
                }
            }
            "case" => self.case_range(i),
            "__builtin_va_arg" if paren => self.va_arg(i),
            "__builtin_offsetof" if paren => self.offsetof(i),
            // A constant of the types alone: nothing in it runs.
            "__builtin_types_compatible_p" if paren => {
                if let Some(close) = self.close(i + 1) {
                    self.constant(i, close);
                }
            }
            "typeof" | "__typeof__" | "__typeof" if paren => self.typeof_argument(i),
            "_Static_assert" if paren => {
                if let Some(close) = self.close(i + 1) {
                    let last = if self.t(close + 1) == ";" {
                        close + 1
                    } else {
                        close
                    };
                    self.tokens_as(i, last, "");
                }
            }
            // The same storage class under the spelling tree-sitter-c knows.
            "_Thread_local" => {
                self.tokens_as(i, i, "thread_local");
            }
            // `goto *p;`: read as `*p;` from where `goto` starts (see `computed_goto`).
            "goto" if self.t(i + 1) == "*" => {
                self.tokens_as(i, i + 1, "*");
            }
            "&" => self.label_address(i),
            "asm" | "__asm__" | "__asm" if paren => self.asm_label(i),
            "_Atomic" if paren => self.atomic_specifier(i),
            _ => {}
        }
    }

    /// `case LOW ... HIGH:` is read as `case LOW:`; the three dots are three `.` tokens.
    fn case_range(&mut self, i: usize) {
        let mut j = i + 1;
        let mut depth = 0usize;
        while j < self.toks.len() && !(depth == 0 && self.t(j) == ":") {
            match self.t(j) {
                "(" | "[" => depth += 1,
                ")" | "]" => depth = depth.saturating_sub(1),
                ";" | "{" | "}" => break,
                _ => {}
            }
            if depth == 0
                && self.t(j) == "."
                && self.t(j + 1) == "."
                && self.t(j + 2) == "."
                && self.toks[j + 2].start == self.toks[j].start + 2
            {
                let mut end = j + 3;
                while end < self.toks.len() && !matches!(self.t(end), ":" | ";") {
                    end += 1;
                }
                if self.t(end) == ":" {
                    let (from, to) = (self.toks[j].start, self.toks[end].start);
                    self.replace(from, to, "");
                }
                break;
            }
            j += 1;
        }
    }

    /// The tokens `i..=close` of a built-in call as the constant `(0)`, from the first byte
    /// of the name to the last `)`: the instrumentation puts its edits at the ends of the
    /// nodes the parser finds, which must be the ends of the text the compiler reads.
    fn constant(&mut self, i: usize, close: usize) {
        let (from, to) = (self.toks[i].start, self.toks[close].start);
        self.replace(from, to, "(0");
    }

    /// `__builtin_va_arg(ap, T)` is read as `(ap, 0)`, over the same bytes: the list is
    /// evaluated, the type is no expression, and no function is called.
    fn va_arg(&mut self, i: usize) {
        let Some(close) = self.close(i + 1) else {
            return;
        };
        if let [comma] = self.commas(i + 1, close)[..]
            && comma + 1 < close
        {
            let (from, to) = (self.toks[comma + 1].start, self.toks[close].start);
            if self.replace(from, to, "0") {
                self.tokens_as(i, i + 1, "(");
            }
        }
    }

    /// `__builtin_offsetof(T, m.a[i])` is a constant `(0)` unless its designator can run
    /// code (a call or a `?:` in an index), which is then kept as an expression, read as
    /// `(0, m.a[f()])`.
    fn offsetof(&mut self, i: usize) {
        let Some(close) = self.close(i + 1) else {
            return;
        };
        let [comma] = self.commas(i + 1, close)[..] else {
            return;
        };
        let runs = (comma + 1..close).any(|j| matches!(self.t(j), "(" | "?"));
        if !runs {
            self.constant(i, close);
        } else if comma > i + 2 {
            let (from, to) = (self.toks[i + 2].start, self.toks[comma].start);
            if self.replace(from, to, "0") {
                self.tokens_as(i, i + 1, "(");
            }
        }
    }

    /// `typeof(expr)`: tree-sitter-c reads `typeof(T)` as a macro applied to a type name, so
    /// an argument that is not a type name becomes the name `_`; the expression is not
    /// evaluated (C11 6.7.2.5 aside, for variably modified types, which only calls in a
    /// size could make observable).
    fn typeof_argument(&mut self, i: usize) {
        let Some(close) = self.close(i + 1) else {
            return;
        };
        let argument: Vec<&str> = (i + 2..close).map(|j| self.t(j)).collect();
        let names = argument.iter().take_while(|w| is_identifier(w)).count();
        let type_name = names > 0
            && argument[names..]
                .iter()
                .all(|w| *w == "*" || POINTER_QUALIFIERS.contains(w));
        if !type_name && close > i + 2 {
            self.tokens_as(i + 2, close - 1, "_");
        }
    }

    /// `&&label`, GNU's address of a label, is read as `& label`. It is unary only after an
    /// operator or an opening bracket; elsewhere `&&` is the logical and.
    fn label_address(&mut self, i: usize) {
        let adjacent = self.t(i + 1) == "&" && self.toks[i + 1].start == self.toks[i].end;
        if !adjacent || !is_identifier(self.t(i + 2)) {
            return;
        }
        let before = if i == 0 { "" } else { self.t(i - 1) };
        if matches!(before, "(" | "," | "=" | "{" | "?" | ":" | "return") {
            self.tokens_as(i + 1, i + 1, "");
        }
    }

    /// `register int r asm("r0") = 0;`: the assembler name of a declarator, which only the
    /// assembler reads, is blanked. An `asm` statement has operands or follows no name.
    fn asm_label(&mut self, i: usize) {
        let Some(close) = self.close(i + 1) else {
            return;
        };
        let label = close > i + 2 && (i + 2..close).all(|j| self.t(j).starts_with('"'));
        let before = if i == 0 { "" } else { self.t(i - 1) };
        let after_name =
            before == "]" || (is_identifier(before) && !matches!(before, "else" | "do"));
        let ends = matches!(self.t(close + 1), "=" | "," | ";" | "__attribute__");
        if label && after_name && ends {
            self.tokens_as(i, close, "");
        }
    }

    /// `_Atomic(T)`, the specifier, is read as the qualifier `_Atomic T`, which is the same
    /// type unless T is a pointer or function type: those are left alone.
    fn atomic_specifier(&mut self, i: usize) {
        let Some(close) = self.close(i + 1) else {
            return;
        };
        let simple = (i + 2..close).all(|j| !matches!(self.t(j), "*" | "(" | "["));
        if simple && close > i + 2 {
            self.tokens_as(i + 1, i + 1, "");
            self.tokens_as(close, close, "");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cprog::syntax;

    fn has_errors(src: &str) -> bool {
        syntax::parse(src).root_node().has_error()
    }

    /// The parser's copy of `src`, which tree-sitter-c must read where it could not read
    /// `src`, with the same length and lines.
    fn readable(src: &str) -> String {
        assert!(has_errors(src), "tree-sitter-c reads this already: {src}");
        let out = blank_for_parser(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(
            out.match_indices('\n').collect::<Vec<_>>(),
            src.match_indices('\n').collect::<Vec<_>>()
        );
        assert!(!has_errors(&out), "{out}");
        out
    }

    /// Whether the parse of `out` has a node over exactly the bytes of the first `what` in
    /// `src`: the instrumentation's edits at the ends of that node land where the
    /// compiler's text has the ends of `what`.
    fn spans(src: &str, out: &str, what: &str) -> bool {
        let start = src.find(what).expect("the construct is in the source");
        let end = start + what.len();
        let tree = syntax::parse(out);
        let mut node = tree.root_node().descendant_for_byte_range(start, end);
        while let Some(n) = node {
            if (n.start_byte(), n.end_byte()) == (start, end) {
                return true;
            }
            node = n.parent();
        }
        false
    }

    /// `text` with each run of blanks one space, to compare against without counting them.
    fn squeezed(text: &str) -> String {
        text.split(' ')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn type_arguments_of_va_arg_become_a_placeholder_and_the_list_stays() {
        let src = "int f(int n, ...) {\n __builtin_va_list ap;\n __builtin_va_start(ap, n);\n char *s = __builtin_va_arg(ap, char*);\n unsigned long u = __builtin_va_arg(ap, unsigned long);\n int (*g)(int) = __builtin_va_arg(ap, int (*)(int));\n __builtin_va_end(ap);\n return s[0] + (int)u + g(1); }\n";
        let out = readable(src);
        assert!(spans(src, &out, "__builtin_va_arg(ap, char*)"), "{out}");
        let out = squeezed(&out);
        assert!(out.contains("char *s = ( ap, 0 );"), "{out}");
        assert!(out.contains("unsigned long u = ( ap, 0 );"), "{out}");
        assert!(out.contains("int (*g)(int) = ( ap, 0 );"), "{out}");
    }

    #[test]
    fn offsetof_is_a_constant_unless_its_designator_can_run_code() {
        let src = "struct s { int a[4]; struct { int c; } b; };\nint g(void);\nunsigned long f(void) { return __builtin_offsetof(struct s, b.c) + __builtin_offsetof(struct s, a[g()]); }\n";
        let out = readable(src);
        assert!(
            spans(src, &out, "__builtin_offsetof(struct s, b.c)"),
            "{out}"
        );
        assert!(
            spans(src, &out, "__builtin_offsetof(struct s, a[g()])"),
            "{out}"
        );
        let out = squeezed(&out);
        assert!(out.contains("return (0 ) + ( 0 , a[g()]); }"), "{out}");
    }

    #[test]
    fn types_compatible_p_is_a_constant() {
        let src = "int f(int x) { return __builtin_types_compatible_p(int, long) + __builtin_types_compatible_p(char *, __typeof__(x)); }\n";
        let out = readable(src);
        assert!(spans(src, &out, "__builtin_types_compatible_p(int, long)"));
        assert!(squeezed(&out).contains("return (0 ) + (0 ); }"), "{out}");
    }

    #[test]
    fn typeof_an_expression_reads_as_a_type_name() {
        let src = "int f(int *x) { __typeof__(*x) y = *(__typeof__(*x) *)x; typeof((x)[0]) z = y; __typeof__(int *) p = x; return y + z + *p; }\n";
        let out = readable(src);
        let out = squeezed(&out);
        assert!(
            out.contains("__typeof__(_ ) y = *(__typeof__(_ ) *)x;"),
            "{out}"
        );
        assert!(out.contains("typeof(_ ) z"), "{out}");
        // A type name is one already.
        assert!(out.contains("__typeof__(int *) p"), "{out}");
    }

    #[test]
    fn static_assertions_are_blanked_everywhere() {
        let src = "_Static_assert(sizeof(int) == 4, \"int\");\nstruct s { int a; _Static_assert(1, \"x\"); };\nint f(void) { _Static_assert(1, \"y\"); return 0; }\n";
        let out = readable(src);
        let out = squeezed(&out);
        assert!(
            out.starts_with("\nstruct s { int a; };\nint f(void) { return 0; }"),
            "{out}"
        );
    }

    #[test]
    fn thread_local_and_atomic_specifiers_take_the_spelling_tree_sitter_knows() {
        let src = "static _Thread_local const char *c;\n_Atomic(long) b;\nint f(void) { return c[0] + (int)b; }\n";
        let out = readable(src);
        assert!(
            squeezed(&out).starts_with("static thread_local const char *c;\n_Atomic long b;"),
            "{out}"
        );
        // `_Atomic(int *)` is an atomic pointer, `_Atomic int *` a pointer to atomic int.
        let pointer = "_Atomic(int *) p;\n";
        assert_eq!(blank_for_parser(pointer), pointer);
    }

    #[test]
    fn computed_gotos_read_as_expressions_and_are_reported() {
        let src = "int f(int i) { static void *t[] = { &&one, &&two }; goto *t[i]; one: return 1; two: return i && 2; }\n";
        let out = readable(src);
        assert!(spans(src, &out, "goto *t[i];"), "{out}");
        assert!(spans(src, &out, "&&one"), "{out}");
        let out = squeezed(&out);
        assert!(out.contains("{ & one, & two }; * t[i]; one:"), "{out}");
        assert!(out.contains("return i && 2;"), "{out}");
        assert!(computed_goto(src));
        assert!(!computed_goto(
            "int f(int *p) { goto out; out: return *p; }\n"
        ));
    }

    #[test]
    fn assembler_names_of_declarators_are_blanked_not_asm_statements() {
        let src = "int f(void) { register int r __asm__(\"eax\") = 0; if (r) asm(\"nop\"); else __asm__(\"nop\"); return r; }\n";
        let out = readable(src);
        let out = squeezed(&out);
        assert!(out.contains("register int r = 0;"), "{out}");
        assert!(
            out.contains("if (r) asm(\"nop\"); else __asm__(\"nop\");"),
            "{out}"
        );
    }

    #[test]
    fn generic_selections_and_type_sizes_need_no_rewrite() {
        // After `gcc -E` these are plain syntax tree-sitter-c reads; the test keeps it so.
        let src = "typedef unsigned long ul;\nint f(ul p, char *s) { return _Generic(p, ul: 1, struct t *: 3, default: 0) + _Generic(s, char *: 2, default: 0) + (int)(sizeof(char *) + sizeof(struct { int x; }) + _Alignof(ul) + __alignof__(char *)); }\n";
        assert!(!has_errors(src));
        assert_eq!(blank_for_parser(src), src);
    }

    #[test]
    fn attributes_and_case_ranges_are_blanked_for_the_parser_only() {
        let src = "int main(void) { int u __attribute__((unused)) = 0;\n switch (u) { case 1 ... 3: break; case 'a': ; } }\n";
        let out = blank_for_parser(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(out.contains("int u                         = 0;"), "{out}");
        assert!(out.contains("case 1      : break; case 'a':"), "{out}");
    }
}

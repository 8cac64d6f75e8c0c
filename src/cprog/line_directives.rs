//! Line directives written into a version under review, found and blanked before gcc reads
//! the version.
//!
//! Key item: [`neutralise`], which returns a file's bytes with every line directive
//! (`#line 12 "f.c"`, GNU's `# 12 "f.c" 3`, also spelt with the digraph `%:`) replaced by
//! spaces, and the lines it blanked.
//!
//! Why: the front end reads gcc's line markers to know where each line of the preprocessed
//! text came from and whether it is a system header's. gcc writes the markers a source file
//! asks for as faithfully as its own, so a branch could write `# 1 "/usr/include/stdio.h" 3`
//! above a function it changes and have the function taken for the C library's. With the
//! directives gone, every marker in gcc's output is one gcc wrote itself about a file it
//! really read. Blanking keeps every byte offset and line number, so hunks, coverage and the
//! report still point at the right lines; what is lost is only `__LINE__`/`__FILE__` as the
//! directive would have set them, and the mapping of generated code (bison, re2c) back to its
//! grammar, which a review of the generated file does not want anyway.
//!
//! The scan follows C's translation phases as far as directives need: line splices (`\`
//! before the end of a line, spaces allowed as gcc allows them), comments (a comment is
//! whitespace, so `/* x */ # 1 "f"` is a directive, and a block comment that starts on a
//! directive line carries the directive on to the line where the comment ends), and string
//! and character literals (whose `/*` or `#` is text). Trigraphs are not read: gcc ignores
//! them in the GNU dialects mergelens preprocesses with, and no flag of a review enables
//! them.

/// `text` with every line directive blanked, and the 1-based lines where one began; `None`
/// when it has none (most files).
pub(crate) fn neutralise(text: &[u8]) -> Option<(Vec<u8>, Vec<u32>)> {
    let directives = find(text);
    if directives.is_empty() {
        return None;
    }
    let mut out = text.to_vec();
    let mut lines = Vec::with_capacity(directives.len());
    for Directive { start, end, line } in directives {
        for b in &mut out[start..end] {
            if !matches!(*b, b'\n' | b'\r') {
                *b = b' ';
            }
        }
        lines.push(line);
    }
    Some((out, lines))
}

/// One line directive: its bytes (from the start of its logical line to the line break that
/// ends it) and the physical line it starts on.
#[derive(Debug, PartialEq, Eq)]
struct Directive {
    start: usize,
    end: usize,
    line: u32,
}

/// A cursor over a file's bytes that sees through line splices.
struct Scan<'a> {
    text: &'a [u8],
    at: usize,
    /// The 1-based physical line of `at`.
    line: u32,
}

impl Scan<'_> {
    /// Skips the line splices at the cursor.
    fn skip_splices(&mut self) {
        while let Some(after) = splice_at(self.text, self.at) {
            self.line += 1;
            self.at = after;
        }
    }

    /// The byte at the cursor, after any splices.
    fn peek(&mut self) -> Option<u8> {
        self.skip_splices();
        self.text.get(self.at).copied()
    }

    /// The byte after the one at the cursor, seen through splices (without moving).
    fn peek_second(&mut self) -> Option<u8> {
        self.skip_splices();
        let mut probe = self.at + 1;
        while let Some(after) = splice_at(self.text, probe) {
            probe = after;
        }
        self.text.get(probe).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        if b == b'\n' {
            self.line += 1;
        }
        Some(b)
    }

    /// Skips spaces, tabs and comments on the current logical line (a block comment may
    /// span lines). Returns false at a line break or the end.
    fn skip_blank(&mut self) -> bool {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\x0b' | b'\x0c' | b'\r') => {
                    self.at += 1;
                }
                Some(b'/') if self.peek_second() == Some(b'*') => {
                    self.bump();
                    self.bump();
                    self.skip_block_comment();
                }
                Some(b'/') if self.peek_second() == Some(b'/') => {
                    self.skip_to_line_end();
                    return false;
                }
                Some(b'\n') | None => return false,
                Some(_) => return true,
            }
        }
    }

    /// After `/*`: to just past the closing `*/`, or the end.
    fn skip_block_comment(&mut self) {
        while let Some(b) = self.bump() {
            if b == b'*' && self.peek() == Some(b'/') {
                self.bump();
                return;
            }
        }
    }

    /// To the line break that ends the logical line (not past it), through literals and
    /// comments.
    fn skip_to_line_end(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b'\n' => return,
                b'"' | b'\'' => {
                    self.bump();
                    self.skip_literal(b);
                }
                b'/' if self.peek_second() == Some(b'*') => {
                    self.bump();
                    self.bump();
                    self.skip_block_comment();
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// After an opening quote: past the closing one, or to the line break an unterminated
    /// literal ends at.
    fn skip_literal(&mut self, quote: u8) {
        while let Some(b) = self.peek() {
            match b {
                b'\n' => return,
                b'\\' => {
                    self.bump();
                    if self.peek() != Some(b'\n') {
                        self.bump();
                    }
                }
                _ => {
                    self.bump();
                    if b == quote {
                        return;
                    }
                }
            }
        }
    }

    /// An identifier at the cursor (through splices), consumed.
    fn identifier(&mut self) -> Vec<u8> {
        let mut name = Vec::new();
        while let Some(b) = self.peek() {
            if b.is_ascii_alphanumeric() || b == b'_' {
                name.push(b);
                self.at += 1;
            } else {
                break;
            }
        }
        name
    }
}

/// Where the text goes on after a line splice at `at` (a backslash, optional blanks, a line
/// break), if there is one.
fn splice_at(text: &[u8], at: usize) -> Option<usize> {
    if text.get(at) != Some(&b'\\') {
        return None;
    }
    let mut i = at + 1;
    while matches!(text.get(i), Some(b' ' | b'\t' | b'\x0b' | b'\x0c' | b'\r')) {
        i += 1;
    }
    (text.get(i) == Some(&b'\n')).then_some(i + 1)
}

/// Every line directive of `text`, in order.
fn find(text: &[u8]) -> Vec<Directive> {
    let mut found = Vec::new();
    let mut scan = Scan {
        text,
        at: 0,
        line: 1,
    };
    while scan.at < text.len() {
        let (start, line) = (scan.at, scan.line);
        if scan.skip_blank() && is_line_directive(&mut scan) {
            scan.skip_to_line_end();
            found.push(Directive {
                start,
                end: scan.at,
                line,
            });
        } else {
            scan.skip_to_line_end();
        }
        scan.bump();
    }
    found
}

/// At the first token of a logical line: whether it is `#` (or `%:`) followed by a number
/// or `line`. Consumes what it reads.
fn is_line_directive(scan: &mut Scan) -> bool {
    match scan.peek() {
        Some(b'#') => {
            scan.bump();
        }
        Some(b'%') if scan.peek_second() == Some(b':') => {
            scan.bump();
            scan.bump();
        }
        _ => return false,
    }
    if !scan.skip_blank() {
        return false;
    }
    match scan.peek() {
        Some(b) if b.is_ascii_digit() => true,
        Some(b'l') => scan.identifier() == b"line",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn blanked(text: &str) -> (String, Vec<u32>) {
        match neutralise(text.as_bytes()) {
            Some((out, lines)) => (String::from_utf8(out).unwrap(), lines),
            None => (text.to_string(), Vec::new()),
        }
    }

    #[test]
    fn every_spelling_of_a_line_directive_is_blanked() {
        for (text, line) in [
            ("# 1 \"/usr/include/stdio.h\" 3\nint f;\n", 1),
            ("int a;\n  #line 7 \"x.c\"\nint f;\n", 2),
            ("int a;\n%:line 7\nint f;\n", 2),
            ("/* c */ # /* d */ 12 \"q.c\" 3\nint f;\n", 1),
            ("#\\\nline 20 \"s.c\"\nint f;\n", 1),
            ("#li\\\nne 20 \"s.c\"\nint f;\n", 1),
            ("\t#\t 4\r\nint f;\r\n", 1),
        ] {
            let (out, lines) = blanked(text);
            assert_eq!(lines, vec![line], "{text:?}");
            assert_eq!(out.len(), text.len());
            assert_eq!(out.lines().count(), text.lines().count(), "{text:?}");
            assert!(!out.contains('#') && !out.contains("line"), "{out:?}");
            assert!(out.contains("int f;"), "{out:?}");
        }
    }

    #[test]
    fn a_comment_opened_on_a_directive_line_carries_it_on() {
        let (out, lines) = blanked("#line 1 \"x\" /* a\n b */ int hidden;\nint f;\n");
        assert_eq!(lines, vec![1]);
        assert!(!out.contains("hidden") && out.contains("int f;"), "{out:?}");
    }

    #[test]
    fn other_directives_and_text_are_left_alone() {
        for text in [
            "#include \"a.h\"\n#define L 1\n#if 1\n#endif\n#pragma GCC system_header\n",
            "#lines 1\n#linear\n# define X 1\n",
            "char *s = \"\\\n# 1 \\\"x\\\" 3\";\n",
            "/*\n# 1 \"x\" 3\n*/\n",
            "#define M \\\n# 1 \"x\" 3\n",
            "int a; // \\\n# 1 \"x\" 3\n",
            "x = '\"'; # 1 \"x\"\n",
        ] {
            assert_eq!(neutralise(text.as_bytes()), None, "{text:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        /// On any bytes: offsets and line breaks are kept, only directive lines change, and
        /// the result has no line directive left.
        #[test]
        fn blanking_keeps_layout_and_leaves_no_directive(
            parts in proptest::collection::vec(prop_oneof![
                Just("#".to_string()), Just("%:".to_string()), Just("line".to_string()),
                Just(" 1 \"f.c\" 3".to_string()), Just("\\\n".to_string()),
                Just("/*".to_string()), Just("*/".to_string()), Just("//".to_string()),
                Just("\"".to_string()), Just("'".to_string()), Just("\n".to_string()),
                Just("\r\n".to_string()), Just(" ".to_string()), "[ -~]{0,6}",
            ], 0..24)
        ) {
            let text = parts.concat();
            if let Some((out, lines)) = neutralise(text.as_bytes()) {
                prop_assert_eq!(out.len(), text.len());
                for (a, b) in out.iter().zip(text.as_bytes()) {
                    prop_assert!(a == b || *a == b' ');
                }
                prop_assert!(!lines.is_empty());
                prop_assert_eq!(neutralise(&out), None);
            }
        }
    }
}

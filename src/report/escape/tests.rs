use proptest::prelude::*;

use super::*;

/// Text an attacker would write: markup, mentions, comments, escapes and controls, mixed
/// with any character at all.
fn hostile() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("<!--".to_string()),
        Just("<img src=x onerror=alert(1)>".to_string()),
        Just("[link](http://x)".to_string()),
        Just("@team".to_string()),
        Just("\x1b[2K\r\x1b[32mclean".to_string()),
        Just("| a | b |".to_string()),
        Just("```".to_string()),
        Just("\\|".to_string()),
        Just("1. ".to_string()),
        Just("#12".to_string()),
        Just("\u{202e}\u{2066}\u{85}\u{7f}".to_string()),
        Just("&lt;".to_string()),
        "[a-z0-9 ]{0,5}",
        any::<char>().prop_map(String::from),
        (0u32..0x40).prop_map(|c| char::from_u32(c).unwrap().to_string()),
    ];
    prop::collection::vec(pieces, 0..12).prop_map(|v| v.concat())
}

/// What a reader of rendered Markdown sees: backslash escapes and the three entities
/// decoded, the word joiner after `@` and `#` dropped.
fn shown(md: &str) -> String {
    let mut out = String::new();
    let mut rest = md;
    while let Some(first) = rest.chars().next() {
        let mut c = first;
        let mut after = &rest[c.len_utf8()..];
        if c == '\\' {
            c = after.chars().next().expect("no trailing backslash");
            after = &after[c.len_utf8()..];
        } else if let Some((entity, ch)) = [("&lt;", '<'), ("&gt;", '>'), ("&amp;", '&')]
            .into_iter()
            .find(|(e, _)| rest.starts_with(e))
        {
            out.push(ch);
            rest = &rest[entity.len()..];
            continue;
        }
        out.push(c);
        rest = after;
        if (c == '@' || c == '#') && rest.starts_with('\u{2060}') {
            rest = &rest['\u{2060}'.len_utf8()..];
        }
    }
    out
}

/// Whether every `|` is preceded by an odd number of backslashes (a table keeps it).
fn pipes_escaped(s: &str) -> bool {
    let b = s.as_bytes();
    (0..b.len()).filter(|&i| b[i] == b'|').all(|i| {
        let run = b[..i].iter().rev().take_while(|&&x| x == b'\\').count();
        run % 2 == 1
    })
}

fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn markdown_text_is_inert(s in prop_oneof![hostile(), any::<String>()]) {
        let md = markdown(&s);
        prop_assert!(!md.chars().any(is_hazard), "{md:?}");
        prop_assert!(!md.contains('<') && !md.contains('>'), "{md:?}");
        prop_assert!(!md.contains("<!--"));
        prop_assert!(pipes_escaped(&md), "{md:?}");
        prop_assert!(pipes_escaped(&markdown_cell(&md)), "{md:?}");
        prop_assert_eq!(markdown_cell(&md), md.clone());
        for (i, c) in md.char_indices() {
            if c == '@' || c == '#' {
                prop_assert!(md[i + 1..].starts_with('\u{2060}'), "{md:?}");
            }
            // No emphasis, link, image, code or list syntax stays bare.
            if "*_[]`!~{}$".contains(c) {
                let run = md[..i].bytes().rev().take_while(|&x| x == b'\\').count();
                prop_assert!(run % 2 == 1, "{c} bare in {md:?}");
            }
        }
        // A reader sees what a terminal shows: the text, with controls as escapes.
        prop_assert_eq!(shown(&md), terminal(&s));
    }

    #[test]
    fn markdown_leaves_letters_digits_and_spaces(s in "[A-Za-z0-9 ]{0,40}") {
        prop_assert_eq!(markdown(&s), s);
    }

    #[test]
    fn markdown_code_and_fences_hold_any_text(s in prop_oneof![hostile(), any::<String>()]) {
        let span = markdown_code(&s);
        prop_assert!(!span.chars().any(is_hazard), "{span:?}");
        let fence = markdown_fence("text", &s);
        let ticks: String = fence.chars().take_while(|&c| c == '`').collect();
        let inner = &fence[ticks.len()..fence.len() - ticks.len() - 2];
        prop_assert!(!inner.contains(ticks.as_str()), "{fence:?}");
        prop_assert!(!inner.chars().any(|c| c != '\n' && c != '\t' && is_hazard(c)), "{fence:?}");
        prop_assert!(pipes_escaped(&markdown_cell(&span)));
    }

    #[test]
    fn terminal_fields_hold_no_control(s in prop_oneof![hostile(), any::<String>()]) {
        let field = terminal(&s);
        prop_assert!(!field.chars().any(is_hazard), "{field:?}");
        prop_assert!(!field.contains('\x1b') && !field.contains('\r') && !field.contains('\n'));
        let lines = terminal_lines(&s);
        prop_assert!(!lines.chars().any(|c| c != '\n' && is_hazard(c)), "{lines:?}");
        prop_assert_eq!(lines.matches('\n').count(), s.matches('\n').count());
        // Each line of the block is the field of that line.
        let split: Vec<String> = s.split('\n').map(terminal).collect();
        prop_assert_eq!(lines, split.join("\n"));
        if !s.chars().any(is_hazard) {
            prop_assert_eq!(field, s);
        }
    }

    #[test]
    fn sarif_uris_decode_to_the_path(s in prop_oneof![hostile(), any::<String>()]) {
        let uri = sarif_uri(&s);
        prop_assert!(uri.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~/%".contains(&b)));
        prop_assert_eq!(uri.matches('/').count(), s.matches('/').count());
        prop_assert_eq!(percent_decode(&uri), s.into_bytes());
    }

    #[test]
    fn sarif_text_has_no_control_or_bare_bracket(s in prop_oneof![hostile(), any::<String>()]) {
        let text = sarif_text(&s);
        prop_assert!(!text.chars().any(is_hazard), "{text:?}");
        for (i, c) in text.char_indices() {
            if c == '[' || c == ']' {
                let run = text[..i].bytes().rev().take_while(|&x| x == b'\\').count();
                prop_assert!(run % 2 == 1, "{text:?}");
            }
        }
    }
}

#[test]
fn the_attack_examples() {
    assert_eq!(
        markdown("<img src=x onerror=alert(1)> @team <!-- x"),
        "&lt;img src=x onerror=alert(1)&gt; @\u{2060}team &lt;\\!-- x"
    );
    assert_eq!(markdown("a\r\nb"), "a\\\\r\\\\nb");
    assert_eq!(markdown("1. first"), "1\\. first");
    assert_eq!(markdown("2)"), "2\\)");
    assert_eq!(markdown("- x - y"), "\\- x - y");
    assert_eq!(markdown("[a](b)"), "\\[a\\](b)");
    assert_eq!(markdown("v1.2"), "v1.2");
    assert_eq!(markdown("1.5 s."), "1.5 s.");
    assert_eq!(markdown(" 12."), " 12\\.");
    assert_eq!(
        terminal("\x1b[2K\r\x1b[32mclean"),
        "\\x1b[2K\\r\\x1b[32mclean"
    );
    assert_eq!(terminal("a\u{202e}b\u{9b}c"), "a\\u{202e}b\\u{9b}c");
    assert_eq!(terminal_lines("a\nb\x07"), "a\nb\\x07");
    assert_eq!(sarif_uri("src/a b#%<.c"), "src/a%20b%23%25%3C.c");
    assert_eq!(sarif_uri("d/é.c"), "d/%C3%A9.c");
    assert_eq!(sarif_text("see [x](1)\x1b"), "see \\[x\\](1)\\x1b");
    assert_eq!(markdown_cell("`a|b`"), "`a\\|b`");
    assert_eq!(markdown_code("a`b"), "``a`b``");
    assert_eq!(markdown_code("`x"), "`` `x ``");
    assert_eq!(markdown_code("a\nb"), "`a\\nb`");
    assert_eq!(
        html("<td>a\u{202e}b\x1b</td>\n\t".to_string()),
        "<td>a\\u{202e}b\\x1b</td>\n\t"
    );
    assert_eq!(
        markdown_fence("diff", "-\tx\r\n+\ty\x1b\n"),
        "```diff\n-\tx\\r\n+\ty\\x1b\n```\n\n"
    );
}

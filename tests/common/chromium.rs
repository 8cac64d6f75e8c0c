//! Headless Chromium for the report tests (installed by `scripts/install-chromium.sh`,
//! which `make test` runs): a page loaded with a fresh profile and no network, its DOM as
//! the page's script leaves it, and what it wrote to the console.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use mergelens::report::{self, Document, Format, Options};

const CHROMIUM: &str = "/usr/bin/chromium";

/// Runs Chromium headless on a file with a fresh profile and no background traffic; fails
/// after two minutes rather than hanging the test run.
pub fn chromium(page: &Path, extra: &[String]) -> Output {
    assert!(
        Path::new(CHROMIUM).exists(),
        "{CHROMIUM} is missing: run scripts/install-chromium.sh (make test does)"
    );
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    // Read both pipes on threads, so that a full pipe cannot block Chromium.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || std::io::read_to_string(&mut stdout).unwrap_or_default());
    let err = std::thread::spawn(move || std::io::read_to_string(&mut stderr).unwrap_or_default());
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().ok();
            child.wait().ok();
            panic!("chromium did not finish within two minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    Output {
        status,
        stdout: out.join().unwrap().into_bytes(),
        stderr: err.join().unwrap().into_bytes(),
    }
}

/// What the page wrote to the console, as Chromium logs it with `--enable-logging=stderr`:
/// uncaught exceptions, `console.*` calls, and refused requests (the page's content security
/// policy forbids all network access). The report's script writes nothing, so any line is a
/// failure.
pub fn console_messages(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .collect()
}

/// The DOM of `document`'s HTML report as headless Chromium leaves it (kept under target/
/// as `name`), after checking that its script ran to the end with no error or console
/// message.
pub fn dom_in_chromium(document: &Document, name: &str) -> String {
    let html = report::render(document, Format::Html, &Options::default()).unwrap();
    dom_of_page(&html, name, &[])
}

/// The DOM of the page `html` as headless Chromium leaves it, run with the `extra` flags
/// (kept under target/ as `name`), after checking that the page's script ran to the end with
/// no error or console message.
pub fn dom_of_page(html: &str, name: &str, extra: &[String]) -> String {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target).unwrap();
    let page = target.join(name);
    std::fs::write(&page, html).unwrap();
    let mut flags = vec!["--dump-dom".to_string()];
    flags.extend_from_slice(extra);
    let dumped = chromium(&page, &flags);
    let dom = String::from_utf8(dumped.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&dumped.stderr);
    assert!(dumped.status.success(), "chromium failed: {stderr}");
    assert!(
        dom.contains("data-ok=\"1\""),
        "the script did not finish:\n{dom}"
    );
    assert!(
        !dom.contains("data-errors=\""),
        "script errors recorded:\n{dom}"
    );
    assert_eq!(console_messages(&stderr), Vec::<&str>::new());
    dom
}

/// The value of the attribute `name` of the first element that has it in `dom` (as
/// `--dump-dom` writes it, entities decoded).
pub fn attribute(dom: &str, name: &str) -> Option<String> {
    let start = dom.find(&format!(" {name}=\""))? + name.len() + 3;
    let value = &dom[start..start + dom[start..].find('"')?];
    Some(
        value
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}

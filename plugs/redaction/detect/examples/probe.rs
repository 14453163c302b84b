//! Prints a text masked, to see what the detector does to it:
//!
//! ```text
//! cargo run --release -p redaction-detect --example probe < file.txt
//! ```
//!
//! Paragraphs split by a line `---` are read apart (each as one whole text).

use std::io::Read;

fn main() {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        eprintln!("probe: reading standard input: {e}");
        std::process::exit(1);
    }
    let r = redaction_detect::Redactor::new(&[]);
    let parts: Vec<String> = text
        .split("\n---\n")
        .map(|p| r.redact(p).into_owned())
        .collect();
    print!("{}", parts.join("\n---\n"));
}

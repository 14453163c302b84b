//! Prints stdin masked: for looking at what the detector does to a text.
use std::io::Read;
fn main() {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).expect("stdin");
    let r = redaction_detect::Redactor::new(&[]);
    // Paragraphs separated by a line of `---` are redacted on their own.
    for part in text.split("\n---\n") {
        println!("{}\n---", r.redact(part));
    }
}

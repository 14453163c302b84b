//! The contract of this repository as 0.3.0 was: the package's patch version
//! 0, `secrets.mask` (what 0.3.1 added) and `prepare` (0.3.2) taken out. A plug built for it is
//! what every plug published before 0.3.1 is.

fn main() {
    let wit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../wit/plug.wit");
    println!("cargo::rerun-if-changed={}", wit.display());
    let text = std::fs::read_to_string(&wit).expect("reading wit/plug.wit");
    let text = text.replace("package blaise:plug@0.3.2;", "package blaise:plug@0.3.0;");
    assert!(
        text.contains("package blaise:plug@0.3.0;"),
        "the contract is no longer 0.3.2: update this plug"
    );
    let start = text
        .find("    /// Masks a secret the plug made itself")
        .expect("secrets.mask's documentation");
    let end = text[start..]
        .find("mask: func(value: string) -> result<_, string>;\n")
        .map(|i| start + i + "mask: func(value: string) -> result<_, string>;\n".len())
        .expect("secrets.mask");
    let text = format!("{}{}", &text[..start], &text[end..]);
    // And what 0.3.2 added: the `prepare` interface and its world.
    let start = text
        .find("/// Preparing ahead:")
        .expect("the prepare interface");
    let end = text
        .find("/// What a plug is: the exports")
        .expect("the plug world");
    let text = format!("{}{}", &text[..start], &text[end..]);
    let text = &text[..text
        .find("/// A plug that also prepares ahead")
        .expect("the preparing-plug world")];
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("wit");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("plug.wit"), text).unwrap();
}

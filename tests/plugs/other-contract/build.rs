//! The contract of this repository with its version bumped to 0.2.0: the
//! plug is built for a contract the runner does not implement.

fn main() {
    let wit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../wit/plug.wit");
    println!("cargo::rerun-if-changed={}", wit.display());
    let text = std::fs::read_to_string(&wit).expect("reading wit/plug.wit");
    let bumped = text.replacen(
        "package blaise:plug@0.1.0;",
        "package blaise:plug@0.2.0;",
        1,
    );
    assert_ne!(
        text, bumped,
        "wit/plug.wit is no longer at 0.1.0: update this test plug"
    );
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("wit");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("plug.wit"), bumped).unwrap();
}

//! The contract of this repository with its minor version bumped (0.2.0 →
//! 0.3.0): the plug is built for a contract the runner does not implement.

fn main() {
    let wit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../wit/plug.wit");
    println!("cargo::rerun-if-changed={}", wit.display());
    let text = std::fs::read_to_string(&wit).expect("reading wit/plug.wit");
    let prefix = "package blaise:plug@";
    let start = text.find(prefix).expect("a package line") + prefix.len();
    let end = start
        + text[start..]
            .find(';')
            .expect("the package line ends with `;`");
    let mut parts = text[start..end].split('.');
    let (major, minor) = (parts.next().unwrap(), parts.next().unwrap());
    let minor: u64 = minor.parse().expect("a numeric minor version");
    let bumped = format!("{}{major}.{}.0{}", &text[..start], minor + 1, &text[end..]);
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("wit");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("plug.wit"), bumped).unwrap();
}

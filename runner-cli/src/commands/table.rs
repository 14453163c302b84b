//! A plain text table for the terminal: columns as wide as their widest cell.
//! Cells come from plugs' `describe` and from indexes: control characters are
//! escaped (no escape sequence reaches the operator's terminal).

use blaise_runner::distribution::download::printable;

pub fn print<const N: usize>(header: [&str; N], rows: &[[String; N]]) {
    let header = header.map(String::from);
    let rows: Vec<[String; N]> = rows
        .iter()
        .map(|r| r.clone().map(|c| printable(&c)))
        .collect();
    let rows = rows.as_slice();
    let widths: Vec<usize> = (0..N)
        .map(|i| {
            rows.iter()
                .chain([&header])
                .map(|r| r[i].len())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in [&header].into_iter().chain(rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:w$}"))
            .collect();
        println!("{}", cells.join("  ").trim_end());
    }
}

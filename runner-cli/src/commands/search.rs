//! `blaise-runner plug search TERM [--index URL-or-path]`: plugs of the index
//! whose name or description contains TERM.

use std::process::ExitCode;

use anyhow::Result;

use blaise_runner::distribution::index::Index;

pub async fn run(term: &str, index_location: &str) -> Result<ExitCode> {
    let index = Index::load(index_location).await?;
    let found = index.search(term);
    if found.is_empty() {
        println!("no plug matches `{term}` in {index_location}");
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<[String; 4]> = found
        .iter()
        .map(|plug| {
            let (version, contract) = match (plug.latest_compatible(), plug.versions.first()) {
                (Some(v), _) => (v.version.clone(), v.contract.clone()),
                (None, Some(v)) => (format!("{} (incompatible)", v.version), v.contract.clone()),
                (None, None) => ("-".into(), "-".into()),
            };
            [
                plug.name.clone(),
                version,
                contract,
                plug.description.clone(),
            ]
        })
        .collect();
    super::table::print(["NAME", "VERSION", "CONTRACT", "DESCRIPTION"], &rows);
    Ok(ExitCode::SUCCESS)
}

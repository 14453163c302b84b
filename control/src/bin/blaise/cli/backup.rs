//! `blaise backup DB COPY`: the SQLite database copied while `serve` runs
//! (`store::sqlite::backup`); a PostgreSQL database is its own tools' job.

use std::io::Write;
use std::path::Path;

use anyhow::{Result, bail};

use super::BackupArgs;
use blaise_control::store::sqlite::backup::backup;

pub fn run(args: &BackupArgs, out: &mut (dyn Write + Send)) -> Result<()> {
    if blaise_control::store::is_postgres_url(&args.db) {
        bail!(
            "--db is a PostgreSQL database: back it up with PostgreSQL's tools, e.g. \
             `pg_dump --format=custom --file=blaise.dump \"$BLAISE_DB\"` (consistent while \
             `blaise serve` runs), and restore it into an empty database with \
             `pg_restore --dbname=URL blaise.dump` before `blaise serve` starts on it"
        );
    }
    let db = Path::new(&args.db);
    let summary = backup(db, &args.to)?;
    writeln!(
        out,
        "{}: {} session{}, schema version {}, {} (integrity checked)",
        args.to.display(),
        summary.sessions,
        if summary.sessions == 1 { "" } else { "s" },
        summary.schema_version,
        blaise_control::views::bytes(summary.bytes)
    )?;
    writeln!(
        out,
        "To restore: stop `blaise serve`, then start it with `--db {}`.",
        args.to.display()
    )?;
    Ok(())
}

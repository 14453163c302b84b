//! The docker plug: a container per session, and the agent inside it.
//!
//! Stateless: the container's name is derived from the session id and the
//! plug id, so any runner instance that reaches the same Docker host finds it,
//! whatever happened to the run that created it. Every container also carries
//! labels (session, run, plug) so that leftovers can be listed and removed.

mod config;
mod docker;
mod prepare;

use blaise_plug::{
    Context, Contribution, PauseInfo, Plug, PlugError, PlugInfo, PrepareContext, TeardownInfo, log,
};

use config::{Config, Network};
use docker::{Docker, State, is_missing, strings};

struct DockerPlug;

#[blaise_plug::plug]
impl Plug for DockerPlug {
    fn describe() -> PlugInfo {
        PlugInfo::builder("docker", env!("CARGO_PKG_VERSION"))
            .description("A container per session, named from the session id, with the workspace mounted; the agent runs inside it")
            .stateful(false)
            .can_resume(true)
            // A hot pause freezes the container (`docker pause`) instead of stopping it.
            .keeps_processes(true)
            .config::<config::Config>()
            .exec(&["docker", "blaise-egress"])
            .build()
    }

    fn on_prepare(ctx: &PrepareContext) -> Result<(), PlugError> {
        // The prepared image, made where every session's start finds it;
        // its scratch container is named from the prepare id, so the next
        // preparation removes what an interrupted one left.
        let ctx = ctx.as_start();
        let config = Config::read(&ctx)?;
        match &config.prepare {
            Some(steps) => {
                let docker = Docker::new(config.host.as_deref());
                prepare::image(&docker, &config, steps, &scratch_name(&ctx)).map(drop)
            }
            None => Ok(()),
        }
    }

    fn on_start(ctx: &Context) -> Result<Contribution, PlugError> {
        let config = Config::read(ctx)?;
        let docker = Docker::new(config.host.as_deref());
        let name = container_name(ctx);
        match docker.state(&name)? {
            // A start that was interrupted after creating it: same session, same container.
            Some(State::Running) => log::info(format!("reusing the running container {name}")),
            Some(State::Paused) => {
                docker.run(&strings(&["unpause", &name]))?;
            }
            Some(State::Stopped) => {
                docker.run(&strings(&["start", &name]))?;
            }
            None => {
                let image = match &config.prepare {
                    Some(steps) => prepare::image(&docker, &config, steps, &scratch_name(ctx))?,
                    None => config.image.clone(),
                };
                create(&docker, &config, ctx, &name, &image)?;
                if let Err(e) = docker.run(&strings(&["start", &name])) {
                    // A container that cannot start is not left behind.
                    let _ = docker.output(&strings(&["rm", "--force", "--volumes", &name]));
                    return Err(config_error(&config, e.message));
                }
                log::info(format!("created container {name} from {image}"));
            }
        }
        launch(&docker, &config, &name)
    }

    fn on_resume(ctx: &Context) -> Result<Contribution, PlugError> {
        let config = Config::read(ctx)?;
        let docker = Docker::new(config.host.as_deref());
        let name = container_name(ctx);
        match docker.state(&name)? {
            None => {
                return Err(PlugError::new(format!(
                    "container {name} is gone: the environment cannot be resumed"
                )));
            }
            Some(State::Stopped) => {
                docker.run(&strings(&["start", &name]))?;
            }
            // Frozen at a hot pause, and the agent in it is continued.
            Some(State::Paused) if ctx.processes_kept => {
                docker.run(&strings(&["unpause", &name]))?;
            }
            Some(State::Paused) => {
                // Frozen at a hot pause whose agent was lost: what is frozen
                // in the container is stale. A restart ends it; the container
                // (and the workspace) keep their files.
                log::info(format!(
                    "container {name} was kept frozen for an agent that is gone: restarting it"
                ));
                docker.run(&strings(&["unpause", &name]))?;
                let timeout = config.stop_timeout.to_string();
                docker.run(&strings(&["restart", "--time", &timeout, &name]))?;
            }
            Some(State::Running) => {}
        }
        launch(&docker, &config, &name)
    }

    fn on_pause(ctx: &Context, info: &PauseInfo) -> Result<(), PlugError> {
        if !info.may_resume {
            // The teardown right after removes it; stopping first is wasted time.
            return Ok(());
        }
        let config = Config::read(ctx)?;
        let docker = Docker::new(config.host.as_deref());
        let name = container_name(ctx);
        let timeout = config.stop_timeout.to_string();
        // A hot pause keeps the agent in the container alive: frozen (no
        // CPU) rather than stopped.
        let args = if info.keep_processes {
            strings(&["pause", &name])
        } else {
            strings(&["stop", "--time", &timeout, &name])
        };
        let out = docker.output(&args)?;
        if !out.success() {
            let why = out.stderr_text();
            if info.keep_processes && why.contains("is already paused") {
                return Ok(());
            }
            if !is_missing(&why) {
                return Err(PlugError::new(format!(
                    "`docker {} {name}` failed: {}",
                    args[0],
                    why.trim()
                )));
            }
            log::warn(format!("container {name} was already gone at the pause"));
        }
        Ok(())
    }

    fn on_teardown(ctx: &Context, _info: &TeardownInfo) -> Result<(), PlugError> {
        // Only the Docker host matters here: the rest of the config may have changed.
        let host = ctx
            .config::<serde_json::Value>()?
            .get("host")
            .and_then(|h| h.as_str().map(str::to_owned));
        let docker = Docker::new(host.as_deref());
        let mut names = vec![container_name(ctx), scratch_name(ctx)];
        // Anything else this plug made for this session, e.g. under an older name.
        let labelled = docker.run(&strings(&[
            "ps",
            "--all",
            "--format",
            "{{.Names}}",
            "--filter",
            &format!("label=blaise.session={}", ctx.session_id),
            "--filter",
            &format!("label=blaise.plug={}", ctx.plug_id),
        ]))?;
        for found in labelled.split_whitespace() {
            if !names.iter().any(|n| n == found) {
                names.push(found.to_owned());
            }
        }
        // One call for all; a name docker does not know (the scratch
        // container of a session that prepared nothing) is fine.
        let mut rm = strings(&["rm", "--force", "--volumes"]);
        rm.extend(names);
        let out = docker.output(&rm)?;
        let stderr = out.stderr_text();
        let failed: Vec<&str> = stderr
            .lines()
            .filter(|line| !line.trim().is_empty() && !is_missing(line))
            .collect();
        if !out.success() && !failed.is_empty() {
            return Err(PlugError::new(format!(
                "`docker rm` failed: {}",
                failed.join("; ")
            )));
        }
        Ok(())
    }
}

/// `blaise-<plug id>-<session id>`, in the characters Docker allows.
fn container_name(ctx: &Context) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .collect()
    };
    format!("blaise-{}-{}", clean(&ctx.plug_id), clean(&ctx.session_id))
}

/// The container a session's start prepares the image in, when it has to.
fn scratch_name(ctx: &Context) -> String {
    format!("{}-prepare", container_name(ctx))
}

fn create(
    docker: &Docker,
    config: &Config,
    ctx: &Context,
    name: &str,
    image: &str,
) -> Result<(), PlugError> {
    let workspace = ctx.workspace.trim_end_matches('/');
    let mut args = strings(&["create", "--pull", "never", "--init", "--name", name]);
    for (key, value) in [
        ("blaise.session", ctx.session_id.as_str()),
        ("blaise.run", ctx.run_id.as_str()),
        ("blaise.plug", ctx.plug_id.as_str()),
    ] {
        args.extend(["--label".into(), format!("{key}={value}")]);
    }
    args.extend(["--network".into(), config.network.mode().into()]);
    // The workspace has the same path inside and out: paths need no translation.
    args.extend([
        "--volume".into(),
        format!("{workspace}:{workspace}"),
        "--workdir".into(),
        workspace.into(),
    ]);
    for mount in &config.mounts {
        args.extend(["--volume".into(), mount.clone()]);
    }
    if let Some(memory) = &config.memory {
        args.extend(["--memory".into(), memory.clone()]);
    }
    if let Some(cpus) = config.cpus {
        args.extend(["--cpus".into(), cpus.to_string()]);
    }
    if let Some(pids) = config.pids_limit {
        args.extend(["--pids-limit".into(), pids.to_string()]);
    }
    if let Some(user) = &config.user {
        args.extend(["--user".into(), user.clone()]);
    }
    args.push(image.into());
    args.extend(config.command.iter().cloned());
    let out = docker.output(&args)?;
    if out.success() {
        return Ok(());
    }
    let why = out.stderr_text();
    let why = why.trim();
    if why.contains("is already in use") {
        // Created meanwhile by another attempt at this start: it is ours.
        return Ok(());
    }
    Err(config_error(
        config,
        format!("`docker create` failed: {why}"),
    ))
}

/// Docker's complaint, pinned on the config field that caused it when one did.
fn config_error(config: &Config, why: String) -> PlugError {
    let lower = why.to_ascii_lowercase();
    if lower.contains("no such image") {
        PlugError::field(
            "image",
            format!(
                "unknown image `{}` on the Docker host (runs never pull; pull or build it first): {why}",
                config.image
            ),
        )
    } else if lower.contains("network") && lower.contains("not found") {
        PlugError::field(
            "network",
            format!("unknown network `{}`: {why}", config.network.mode()),
        )
    } else if lower.contains("bind source path does not exist") || lower.contains("invalid mount") {
        PlugError::field("mounts", why)
    } else {
        PlugError::new(why)
    }
}

/// `docker exec -i` into the container, with the variables the config passes
/// in; with an egress policy, after `blaise-egress --allow … --netns
/// /proc/PID/ns/net --`: its proxy listens in the container's namespace, and
/// the proxy variables it sets are passed in.
fn launch(docker: &Docker, config: &Config, name: &str) -> Result<Contribution, PlugError> {
    let mut prefix = Vec::new();
    if let Network::Egress(egress) = &config.network {
        let pid = docker.run(&strings(&[
            "container",
            "inspect",
            "--format",
            "{{.State.Pid}}",
            name,
        ]))?;
        let pid: u32 = pid.trim().parse().ok().filter(|p| *p > 0).ok_or_else(|| {
            PlugError::new(format!(
                "container {name} has no process (its pid is `{}`)",
                pid.trim()
            ))
        })?;
        prefix = egress.prefix(&["--netns".into(), format!("/proc/{pid}/ns/net")]);
    }
    prefix.extend(docker.words());
    prefix.extend(strings(&["exec", "--interactive"]));
    let proxy_vars = [
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "https_proxy",
        "http_proxy",
        "NO_PROXY",
        "no_proxy",
    ];
    let egress = matches!(config.network, Network::Egress(_));
    for var in config
        .env
        .iter()
        .map(String::as_str)
        .chain(proxy_vars.into_iter().filter(|_| egress))
    {
        // `-e NAME` takes the value from the environment docker runs in: the agent's.
        prefix.extend(["--env".into(), var.to_owned()]);
    }
    if let Some(user) = &config.user {
        prefix.extend(["--user".into(), user.clone()]);
    }
    prefix.push(name.into());
    Ok(Contribution::default().command_prefix(prefix))
}

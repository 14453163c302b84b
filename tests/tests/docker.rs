//! The docker plug against a real Docker daemon: a container per session,
//! named from the session id and labelled; the agent runs inside it; stopped
//! on pause, started on resume (by another runner process), removed with its
//! volumes on teardown; every hook idempotent; bad config names the field.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use blaise_control::model::{AgentSettings, IdlePolicy};
use blaise_runner::host::bindings::{PauseInfo, RunKind, TeardownInfo};
use blaise_runner::host::{Allow, Limits, LoadedPlug};
use blaise_tests::blaise::{Stage, settings};
use blaise_tests::tools::{agent_image, containers, containers_labelled, have, sh};
use blaise_tests::{World, plug, setup};
use serde_json::json;

const MINUTE: Duration = Duration::from_secs(60);

fn allow_docker() -> Allow {
    Allow {
        exec: vec!["docker".into()],
        ..Allow::default()
    }
}

/// A plug host with the docker plug loaded, if there is a Docker daemon.
async fn world_with_docker() -> Option<(World, Arc<LoadedPlug>)> {
    if !have(&["docker"]) {
        return None;
    }
    let w = World::new();
    let docker = w.host.load(&plug("plugs/docker")).await.unwrap();
    Some((w, docker))
}

/// Name and state (`running`, `exited`) of the session's containers.
fn containers_of(session: &str) -> Vec<String> {
    containers_labelled(&format!("blaise.session={session}"))
}

fn inspect(name: &str, format: &str) -> String {
    sh(
        Path::new("/"),
        "docker",
        &["inspect", "--format", format, name],
    )
    .trim()
    .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_agent_runs_in_the_sessions_container_which_stops_on_pause_and_goes_at_teardown() {
    if !have(&["docker"]) {
        return;
    }
    let s = Stage::new(settings(1_500, IdlePolicy::Pause)).await;
    let outside = s.path().join("host-only.txt");
    std::fs::write(&outside, "host secret").unwrap();
    s.configure(&format!(
        "  - id: docker\n    source: {}\n    with:\n      image: {}\n      memory: 256m\n      pids_limit: 256\n    allow:\n      exec: [docker]\n",
        plug("plugs/docker").display(),
        agent_image()
    ));
    let b = &s.blaise;
    let runner = s.runner("box-1");

    let id = b
        .new_session(
            "script",
            &format!(
                "run echo \"host=$(hostname) pwd=$(pwd)\"; cat {} || printf 'no-%s\\n' host-file; wget -q -T 2 -O- {} || printf 'no-%s\\n' network; echo kept > note.txt; touch \"$HOME/.history\" && echo \"home=$HOME is-writable\"",
                outside.display(),
                b.url()
            ),
        )
        .await;
    let name = format!("blaise-docker-{id}");
    b.wait_for_text(&id, "no-network", MINUTE).await;
    // The agent has a home it can write to (its tools keep files there).
    b.wait_for_text(&id, "home=/root is-writable", MINUTE).await;
    assert_eq!(containers_of(&id), [format!("{name} running")]);
    let view = b.show(&id).await;
    let workspace = s.workspace(&view);
    let text = b.transcript_text(&id).await;
    let hostname = inspect(&name, "{{.Config.Hostname}}");
    assert!(
        text.contains(&format!("host={hostname} pwd={}", workspace.display())),
        "the agent runs in the container, in the workspace:\n{text}"
    );
    assert!(
        text.contains("no-host-file") && !text.contains("host secret"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(workspace.join("note.txt")).unwrap(),
        "kept\n",
        "the workspace is mounted"
    );
    // Labelled so that leftovers can be found.
    assert_eq!(
        inspect(&name, "{{index .Config.Labels \"blaise.plug\"}}"),
        "docker"
    );
    let runs = view["runs"].as_array().unwrap();
    assert_eq!(
        inspect(&name, "{{index .Config.Labels \"blaise.run\"}}"),
        runs[0]["id"].as_str().unwrap()
    );
    assert_eq!(
        inspect(&name, "{{.HostConfig.Memory}}"),
        (256 << 20).to_string()
    );

    // Idle: paused, the container stopped, not removed.
    b.wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    assert_eq!(containers_of(&id), [format!("{name} exited")]);

    // Another runner process resumes into the same container (found by name).
    runner.stop().await;
    let runner = s.runner("box-2");
    b.send(&id, "run echo \"again=$(hostname) $(cat note.txt)\"")
        .await
        .unwrap();
    b.wait_for_text(&id, &format!("again={hostname} kept"), MINUTE)
        .await;
    assert_eq!(containers_of(&id), [format!("{name} running")]);
    b.wait_for(&id, "the second pause", MINUTE, |v| v["state"] == "paused")
        .await;

    // Closed while paused: a fresh runner process's teardown run removes it.
    runner.stop().await;
    s.tear_down_in_a_fresh_process(&id).await;
    assert_eq!(
        containers_of(&id),
        Vec::<String>::new(),
        "the container is gone"
    );
}

#[tokio::test]
async fn every_hook_tolerates_what_already_happened() {
    let Some((w, docker)) = world_with_docker().await else {
        return;
    };
    let config = json!({ "image": agent_image() });
    let session = format!("idem-{}", std::process::id());
    let plug_setup = setup("box", &docker, config, allow_docker(), Limits::default());
    let name = format!("blaise-box-{session}");

    // A start that runs twice (a runner killed after creating the container) reuses it.
    let mut run = w
        .instance(plug_setup.clone(), &session, RunKind::Start)
        .await;
    let first = run.on_start().await.unwrap();
    let mut again = w
        .instance(plug_setup.clone(), &session, RunKind::Start)
        .await;
    let second = again.on_start().await.unwrap();
    assert_eq!(first.command_prefix, second.command_prefix);
    // The prefix's program is the one the runner found on its own PATH.
    let docker = blaise_runner::host::grants::find_program("docker").unwrap();
    assert_eq!(
        first.command_prefix,
        [
            docker.to_str().unwrap(),
            "exec",
            "--interactive",
            name.as_str()
        ]
    );
    assert_eq!(containers_of(&session), [format!("{name} running")]);

    // A pause that may not resume skips the stop (the teardown follows).
    let no_resume = PauseInfo {
        reason: "closed".into(),
        may_resume: false,
        keep_processes: false,
    };
    run.on_pause(no_resume).await.unwrap();
    assert_eq!(containers_of(&session), [format!("{name} running")]);
    let pause = PauseInfo {
        reason: "idle".into(),
        may_resume: true,
        keep_processes: false,
    };
    run.on_pause(pause.clone()).await.unwrap();
    run.on_pause(pause.clone()).await.unwrap();
    assert_eq!(containers_of(&session), [format!("{name} exited")]);

    // Teardown twice; then a pause of a container that is gone is no error.
    let teardown = TeardownInfo {
        reason: "closed".into(),
        right_after_pause: true,
    };
    run.on_teardown(teardown.clone()).await.unwrap();
    run.on_teardown(teardown).await.unwrap();
    run.on_pause(pause).await.unwrap();
    assert_eq!(containers_of(&session), Vec::<String>::new());

    // A resume with the container gone fails clearly (Blaise then starts afresh).
    let mut resume = w.instance(plug_setup, &session, RunKind::Resume).await;
    let err = resume.on_resume().await.unwrap_err().to_string();
    assert!(err.contains("box") && err.contains("is gone"), "{err}");
}

/// The container's processes, as `docker top` lists them: "PID COMMAND".
fn processes_of(name: &str) -> Vec<String> {
    sh(Path::new("/"), "docker", &["top", name, "-o", "pid,args"])
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[tokio::test]
async fn a_hot_pause_freezes_the_container_with_its_processes_and_a_lost_agent_restarts_it() {
    let Some((w, docker)) = world_with_docker().await else {
        return;
    };
    assert!(docker.info.keeps_processes);
    let config = json!({ "image": agent_image() });
    let session = format!("hot-{}", std::process::id());
    let plug_setup = setup("box", &docker, config, allow_docker(), Limits::default());
    let name = format!("blaise-box-{session}");
    let hot = PauseInfo {
        reason: "idle".into(),
        may_resume: true,
        keep_processes: true,
    };

    // The "agent": a process started in the container, as `docker exec` does.
    let mut run = w
        .instance(plug_setup.clone(), &session, RunKind::Start)
        .await;
    run.on_start().await.unwrap();
    sh(
        Path::new("/"),
        "docker",
        &["exec", "--detach", &name, "sleep", "1234"],
    );
    let agent: Vec<String> = processes_of(&name)
        .into_iter()
        .filter(|p| p.ends_with("sleep 1234"))
        .collect();
    assert_eq!(agent.len(), 1, "{:?}", processes_of(&name));

    // A hot pause freezes it (the cgroup freezer: no CPU), twice is fine.
    run.on_pause(hot.clone()).await.unwrap();
    run.on_pause(hot.clone()).await.unwrap();
    assert_eq!(containers_of(&session), [format!("{name} paused")]);
    assert_eq!(inspect(&name, "{{.State.Paused}}"), "true");
    assert!(processes_of(&name).contains(&agent[0]), "kept while frozen");

    // The resume that continues it thaws the same process.
    let mut run = blaise_runner::host::PlugInstance::new(
        &w.host,
        plug_setup.clone(),
        w.resume_run(&session, true),
    )
    .await
    .unwrap();
    run.on_resume().await.unwrap();
    assert_eq!(containers_of(&session), [format!("{name} running")]);
    assert!(
        processes_of(&name).contains(&agent[0]),
        "the same agent runs on"
    );

    // Hot again, but the agent is lost (a runner restart): the resume is
    // cold, and the stale process frozen in the container is ended.
    run.on_pause(hot.clone()).await.unwrap();
    let mut run = blaise_runner::host::PlugInstance::new(
        &w.host,
        plug_setup.clone(),
        w.resume_run(&session, false),
    )
    .await
    .unwrap();
    run.on_resume().await.unwrap();
    assert_eq!(containers_of(&session), [format!("{name} running")]);
    assert!(
        !processes_of(&name)
            .iter()
            .any(|p| p.ends_with("sleep 1234")),
        "{:?}",
        processes_of(&name)
    );
    sh(Path::new("/"), "docker", &["exec", &name, "true"]);

    // A container kept frozen is torn down like any other.
    run.on_pause(hot).await.unwrap();
    run.on_teardown(TeardownInfo {
        reason: "expired".into(),
        right_after_pause: true,
    })
    .await
    .unwrap();
    assert_eq!(containers_of(&session), Vec::<String>::new());
}

/// Hot resume end to end with the docker plug: a real runner process keeps
/// the agent's `docker exec` client frozen while the container is paused;
/// the next message goes on in the same agent process inside the container.
/// After a runner restart the kept client is gone, and the resume is cold:
/// the plug restarts the stale container and a new agent answers.
#[tokio::test(flavor = "multi_thread")]
async fn a_hot_pause_keeps_the_agent_in_its_paused_container_and_a_restart_resumes_cold() {
    if !have(&["docker"]) {
        return;
    }
    let s = Stage::new(AgentSettings {
        hot_for_ms: 600_000,
        ..settings(1_000, IdlePolicy::Pause)
    })
    .await;
    s.configure(&format!(
        "  - id: docker\n    source: {}\n    with:\n      image: {}\n    allow:\n      exec: [docker]\n",
        plug("plugs/docker").display(),
        agent_image()
    ));
    let b = &s.blaise;
    let runner = s.runner("box-1");
    let id = b.new_session("script", "say first").await;
    let name = format!("blaise-docker-{id}");
    b.wait_for_text(&id, "agent_message: first", MINUTE).await;
    let view = b
        .wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    assert_eq!(view["runs"][0]["stop"]["keep_agent"], true, "{view:#}");
    assert_eq!(containers_of(&id), [format!("{name} paused")]);
    let agent = agent_in(&name);
    assert_eq!(agent.len(), 1, "{:?}", processes_of(&name));

    b.send(&id, "say second").await.unwrap();
    b.wait_for_text(&id, "agent_message: second", MINUTE).await;
    let view = b.show(&id).await;
    assert_eq!(view["runs"][1]["conversation"], "kept", "{view:#}");
    assert_eq!(agent_in(&name), agent, "the same agent process went on");

    // The runner stops while the session is paused hot: the next resume is
    // cold, and the container's stale agent is ended.
    b.wait_for(&id, "the second pause", MINUTE, |v| {
        v["state"] == "paused" && v["runs"].as_array().is_some_and(|r| r.len() == 2)
    })
    .await;
    assert_eq!(containers_of(&id), [format!("{name} paused")]);
    assert!(runner.stop().await.success());
    let runner = s.runner("box-2");
    b.send(&id, "say third").await.unwrap();
    b.wait_for_text(&id, "agent_message: third", MINUTE).await;
    let view = b.show(&id).await;
    assert_ne!(view["runs"][2]["conversation"], "kept", "{view:#}");
    let now = agent_in(&name);
    assert_eq!(now.len(), 1, "{:?}", processes_of(&name));
    assert_ne!(now, agent, "a new agent answered");

    // Closed once paused: its container goes with it (a test leaves none).
    b.wait_for(&id, "the third pause", MINUTE, |v| {
        v["state"] == "paused" && v["runs"].as_array().is_some_and(|r| r.len() == 3)
    })
    .await;
    assert!(runner.stop().await.success());
    s.tear_down_in_a_fresh_process(&id).await;
    assert_eq!(
        containers_of(&id),
        Vec::<String>::new(),
        "the container is gone"
    );
}

/// The script agent's processes in container `name` ("PID COMMAND").
fn agent_in(name: &str) -> Vec<String> {
    processes_of(name)
        .into_iter()
        .filter(|p| p.contains("blaise-script-agent"))
        .collect()
}

#[tokio::test]
async fn bad_config_fails_on_start_naming_the_plug_and_the_field() {
    let Some((w, docker)) = world_with_docker().await else {
        return;
    };
    let ws = w.workspace.to_string_lossy().into_owned();
    let cases = [
        (
            json!({ "image": "blaise-test/no-such-image:1" }),
            "with.image",
            "unknown image",
        ),
        (
            // Read by docker as an option, not an image.
            json!({ "image": "--privileged" }),
            "with.image",
            "is not an image reference",
        ),
        (
            json!({ "image": agent_image(), "mounts": [format!("/tmp:{ws}")] }),
            "with.mounts",
            "conflicts with the session's workspace",
        ),
        (
            json!({ "image": agent_image(), "network": "no-such-network" }),
            "with.network",
            "unknown network",
        ),
        (
            json!({ "image": agent_image(), "prepare": { "run": ["true"], "network": "no-such-network" } }),
            "with.prepare.network",
            "no-such-network not found",
        ),
        (
            json!({ "image": agent_image(), "network": { "allow": ["api.example.com", "[::1"] } }),
            "with.network.allow[1]",
            "without its `]`",
        ),
        (
            json!({ "image": agent_image(), "host": "tcp://10.0.0.1:2375", "network": { "allow": ["api.example.com"] } }),
            "with.network",
            "needs the Docker host on the runner's machine",
        ),
    ];
    for (n, (config, field, words)) in cases.into_iter().enumerate() {
        let session = format!("bad-{}-{n}", std::process::id());
        let plug_setup = setup(
            "my-docker",
            &docker,
            config.clone(),
            allow_docker(),
            Limits::default(),
        );
        let mut run = w.instance(plug_setup, &session, RunKind::Start).await;
        let err = run.on_start().await.unwrap_err().to_string();
        assert!(
            err.contains("my-docker") && err.contains(field) && err.contains(words),
            "{config}: {err}"
        );
        assert_eq!(
            containers_of(&session),
            Vec::<String>::new(),
            "{config}: nothing left"
        );
        assert_eq!(
            containers(&format!("name={session}")),
            Vec::<String>::new(),
            "{config}: no scratch container left"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn with_an_egress_policy_the_container_reaches_the_listed_destinations_only() {
    if !have(&["docker"]) {
        return;
    }
    let s = Stage::new(settings(1_500, IdlePolicy::Pause)).await;
    let allowed = blaise_tests::destinations::http_server("hello-from-the-allowed-server");
    let other_port = blaise_tests::destinations::http_server("this-must-not-be-read");
    s.configure(&format!(
        "  - id: docker\n    source: {}\n    with:\n      image: {}\n      network:\n        allow: [\"127.0.0.1:{allowed}\", api.listed.example]\n    allow:\n      exec: [docker, blaise-egress]\n",
        plug("plugs/docker").display(),
        agent_image()
    ));
    let b = &s.blaise;
    let runner = s.runner("box-1");
    // busybox's nc: plain HTTP to the listed address (its forward), a
    // CONNECT tunnel and plain HTTP through the proxy, a name and a port not
    // listed, a raw address; its nslookup: DNS (UDP) to a server outside.
    let first_line = "| head -1 | tr -d '\\r\\n'";
    let script = [
        format!("printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 20 127.0.0.1 {allowed} | tail -1; echo \" direct\""),
        format!(
            "printf 'CONNECT 127.0.0.1:{allowed} HTTP/1.1\\r\\n\\r\\nGET / HTTP/1.0\\r\\n\\r\\n' | nc -w 20 127.0.0.1 3128 | tr -d '\\r' | grep -e '200 Connection established' -e hello | tr '\\n' ' '; echo \" tunnel\""
        ),
        format!(
            "printf 'GET http://not-listed.example/ HTTP/1.1\\r\\n\\r\\n' | nc -w 20 127.0.0.1 3128 {first_line}; echo \" name\""
        ),
        format!(
            "printf 'GET http://127.0.0.1:{other_port}/ HTTP/1.1\\r\\n\\r\\n' | nc -w 20 127.0.0.1 3128 {first_line}; echo \" port\""
        ),
        "nc -w 20 203.0.113.9 80 </dev/null 2>&1; echo \" raw-ip=$?\"".into(),
        // A DNS query over UDP to a server outside.
        "nslookup -timeout=5 example.com 203.0.113.9 2>&1 | grep -v '^$' | tail -1".into(),
        "echo all-done-$((40 + 2))".into(),
    ]
    .join("; ");
    let id = b.new_session("script", &format!("run {script}")).await;
    let text = b.wait_for_text(&id, "all-done-42", MINUTE).await;
    for expected in [
        "hello-from-the-allowed-server direct",
        "HTTP/1.1 200 Connection established hello-from-the-allowed-server  tunnel",
        "HTTP/1.1 403 Forbidden name",
        "HTTP/1.1 403 Forbidden port",
        "nc: can't connect to remote host (203.0.113.9): Connection refused",
        " raw-ip=1",
        "** server can't find example.com: REFUSED",
    ] {
        assert!(text.contains(expected), "`{expected}` in:\n{text}");
    }
    assert!(!text.contains("this-must-not-be-read"), "{text}");
    assert!(
        !text.contains("Address:") || !text.contains("Name:"),
        "DNS answered: {text}"
    );
    let log = runner
        .wait_for_stderr("refused a DNS lookup of example.com", MINUTE)
        .await;
    for refusal in [
        format!("refused 127.0.0.1:{other_port}: not in"),
        "refused 203.0.113.9:80: a direct connection".into(),
        "refused a DNS lookup of example.com (sent to 203.0.113.9:53)".into(),
    ] {
        assert!(log.contains(&refusal), "{refusal} in:\n{log}");
    }
    b.wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    runner
        .wait_for_stderr(
            &format!("reached 127.0.0.1:{allowed}: 2 connections"),
            MINUTE,
        )
        .await;
    // The run's record has the same, from blaise-egress's own descriptor.
    let egress = &b.show(&id).await["runs"][0]["egress"];
    assert_eq!(
        egress["reached"][0]["destination"],
        format!("127.0.0.1:{allowed}"),
        "{egress}"
    );
    assert_eq!(egress["reached"][0]["connections"], 2, "{egress}");
    assert_eq!(
        egress["refused"],
        json!([
            format!("127.0.0.1:{other_port}"),
            "203.0.113.9:80",
            "example.com (DNS lookup)",
            "not-listed.example:80"
        ]),
        "{egress}"
    );
    runner.stop().await;
    s.tear_down_in_a_fresh_process(&id).await;
    assert_eq!(containers_of(&id), Vec::<String>::new());
}

/// The images the docker plug prepared, `blaise-prepared:<key>`, with `label`.
fn prepared_images(label: &str) -> Vec<String> {
    let listed = sh(
        Path::new("/"),
        "docker",
        &[
            "images",
            "--all",
            "--filter",
            &format!("label={label}"),
            "--format",
            "{{.Repository}}:{{.Tag}}",
        ],
    );
    listed.lines().map(str::to_owned).collect()
}

#[tokio::test]
async fn a_prepared_image_is_made_once_per_configuration_and_later_sessions_start_from_it() {
    let Some((w, docker)) = world_with_docker().await else {
        return;
    };
    let (marker, base) = base_of_its_own("prepared");
    let config =
        |steps: &[String]| json!({ "image": base, "prepare": { "run": steps, "network": "none" } });
    let steps = [
        format!("echo {marker} > /prepared"),
        // Differs each time the steps run.
        "cat /proc/sys/kernel/random/uuid >> /prepared".to_owned(),
    ];
    let teardown = TeardownInfo {
        reason: "closed".into(),
        right_after_pause: false,
    };
    // Sessions 0 and 1 with the same steps, 2 with others, 3 with the first
    // steps again after the base image was rebuilt.
    let mut made = Vec::new();
    let mut seen = Vec::new();
    for (n, steps) in [&steps[..], &steps[..], &steps[..1], &steps[..]]
        .into_iter()
        .enumerate()
    {
        if n == 3 {
            let rebuilt = format!("{marker}-rebuild");
            sh(
                Path::new("/"),
                "docker",
                &["create", "--name", &rebuilt, &base, "true"],
            );
            sh(Path::new("/"), "docker", &["commit", &rebuilt, &base]);
            sh(Path::new("/"), "docker", &["rm", &rebuilt]);
        }
        let session = format!("{marker}-{n}");
        let plug_setup = setup(
            "box",
            &docker,
            config(steps),
            allow_docker(),
            Limits::default(),
        );
        let mut run = w.instance(plug_setup, &session, RunKind::Start).await;
        run.on_start().await.unwrap();
        let name = format!("blaise-box-{session}");
        let image = inspect(&name, "{{.Config.Image}}");
        assert!(image.starts_with("blaise-prepared:"), "{image}");
        assert_eq!(
            inspect(&image, "{{index .Config.Labels \"blaise.prepared.from\"}}"),
            base
        );
        let prepared = sh(
            Path::new("/"),
            "docker",
            &["exec", &name, "cat", "/prepared"],
        );
        assert!(prepared.starts_with(&marker), "{prepared}");
        assert_eq!(
            containers(&format!("name={name}-prepare")),
            Vec::<String>::new(),
            "the scratch container is gone"
        );
        made.push(image);
        seen.push(prepared);
        run.on_teardown(teardown.clone()).await.unwrap();
        assert_eq!(containers_of(&session), Vec::<String>::new());
    }
    assert_eq!(made[0], made[1], "the same configuration, the same image");
    assert_eq!(seen[0], seen[1], "its steps ran once: {seen:?}");
    assert_eq!(seen[0].lines().count(), 2);
    assert_ne!(made[2], made[0], "other steps, another image");
    assert_eq!(seen[2].lines().count(), 1);
    assert_ne!(
        seen[3], seen[0],
        "a rebuilt base is prepared again: {seen:?}"
    );
    let mine = format!("blaise.prepared.from={base}");
    assert_eq!(
        prepared_images(&mine).len(),
        2,
        "kept for later sessions: the first steps' image, made again (the one it replaced is removed), and the others'"
    );
    let ids = sh(
        Path::new("/"),
        "docker",
        &[
            "images",
            "--quiet",
            "--all",
            "--filter",
            &format!("label={mine}"),
        ],
    );
    for id in ids.split_whitespace() {
        let _ = std::process::Command::new("docker")
            .args(["rmi", "--force", id])
            .output();
    }
    sh(Path::new("/"), "docker", &["rmi", &base]);
}

#[tokio::test]
async fn a_failed_preparation_names_its_step_and_leaves_nothing() {
    let Some((w, docker)) = world_with_docker().await else {
        return;
    };
    let (marker, base) = base_of_its_own("broken");
    let config = json!({
        "image": base,
        "prepare": { "run": ["true", format!("echo {marker} said this >&2; exit 3"), "true"], "network": "none" },
    });
    let plug_setup = setup(
        "my-docker",
        &docker,
        config,
        allow_docker(),
        Limits::default(),
    );
    let mut run = w.instance(plug_setup, &marker, RunKind::Start).await;
    let err = run.on_start().await.unwrap_err().to_string();
    assert!(
        err.contains("my-docker")
            && err.contains("with.prepare.run[1]")
            && err.contains("exited with 3")
            && err.contains(&format!("{marker} said this")),
        "{err}"
    );
    assert_eq!(
        containers(&format!("name={marker}")),
        Vec::<String>::new(),
        "nothing left"
    );
    assert_eq!(
        prepared_images(&format!("blaise.prepared.from={base}")),
        Vec::<String>::new(),
        "no image made"
    );
    sh(Path::new("/"), "docker", &["rmi", &base]);
}

/// A name no other test or run used (`what`, the process, random digits),
/// and the script agent's image tagged under it: what is prepared from that
/// base is this test's alone, and the test may rebuild it.
fn base_of_its_own(what: &str) -> (String, String) {
    let uuid = std::fs::read_to_string("/proc/sys/kernel/random/uuid").unwrap();
    let marker = format!("{what}-{}-{}", std::process::id(), &uuid[..8]);
    let base = format!("blaise-test/{marker}:1");
    sh(Path::new("/"), "docker", &["tag", &agent_image(), &base]);
    (marker, base)
}

/// A runner that is idle prepares the image before any session asks
/// (`on-prepare`): the first session's container is created from it, and
/// its start runs no step.
#[tokio::test(flavor = "multi_thread")]
async fn an_idle_runner_prepares_the_image_before_the_first_session() {
    if !have(&["docker"]) {
        return;
    }
    let (marker, base) = base_of_its_own("ahead");
    let s = Stage::new(settings(600_000, IdlePolicy::Pause)).await;
    s.configure(&format!(
        "  - id: docker\n    source: {}\n    with:\n      image: {base}\n      prepare:\n        run: [\"echo {marker} > /prepared\"]\n        network: none\n    allow:\n      exec: [docker]\n",
        plug("plugs/docker").display(),
    ));
    let runner = s.runner("box-1");
    let mine = format!("blaise.prepared.from={base}");
    let start = std::time::Instant::now();
    while prepared_images(&mine).is_empty() {
        assert!(start.elapsed() < MINUTE, "{}", runner.stderr());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let image = prepared_images(&mine).remove(0);
    runner
        .wait_for_stderr("prepared ahead of the sessions", MINUTE)
        .await;
    let scratch = format!(
        "blaise-docker-{}-prepare",
        blaise_runner::ahead::prepare_id(&s.data)
    );
    assert_eq!(
        containers(&format!("name={scratch}")),
        Vec::<String>::new(),
        "no scratch container left"
    );

    let b = &s.blaise;
    let id = b.new_session("script", "run cat /prepared").await;
    b.wait_for_text(&id, &marker, MINUTE).await;
    let name = format!("blaise-docker-{id}");
    assert_eq!(inspect(&name, "{{.Config.Image}}"), image);
    let log = runner.stderr();
    assert_eq!(
        log.matches(&format!("prepared {image}")).count(),
        1,
        "made once, ahead: {log}"
    );
    b.close(&id).await.unwrap();
    b.wait_for(&id, "the teardown", MINUTE, |v| {
        v["environment"]["state"] == "torn_down"
    })
    .await;
    assert_eq!(containers_of(&id), Vec::<String>::new());
    runner.stop().await;
    let _ = std::process::Command::new("docker")
        .args(["rmi", "--force", &image])
        .output();
    sh(Path::new("/"), "docker", &["rmi", &base]);
}

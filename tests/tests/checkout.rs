//! The checkout plug against a real git: clones on start, keeps the agent's
//! work across a pause (fetching, never resetting), removes the clone on
//! teardown; a token granted as a secret reaches a private repository and
//! nothing else; bad config fails `on-start` naming the plug and the field.

use std::path::Path;
use std::time::Duration;

use blaise_control::model::IdlePolicy;
use blaise_runner::host::bindings::RunKind;
use blaise_runner::host::grants::SecretSource;
use blaise_runner::host::{Allow, Limits};
use blaise_tests::blaise::{Stage, settings};
use blaise_tests::git_http::GitHttp;
use blaise_tests::tools::{git, have, origin_repo};
use blaise_tests::{LogCapture, World, plug, setup};
use serde_json::json;

const MINUTE: Duration = Duration::from_secs(60);
const TOKEN: &str = "glpat-Zk3xQw9vLm2Pq7Rt5Yb1";

fn allow_git() -> Allow {
    Allow {
        exec: vec!["git".into()],
        ..Allow::default()
    }
}

fn checkout_entry(repo: &Path, extra: &str) -> String {
    format!(
        "  - id: checkout\n    source: {}\n    with:\n      repo: {}\n{extra}    allow:\n      exec: [git]\n",
        plug("plugs/checkout").display(),
        repo.display()
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_clone_keeps_the_agents_work_across_a_pause_and_goes_at_teardown() {
    if !have(&["git"]) {
        return;
    }
    let s = Stage::new(settings(1_500, IdlePolicy::Pause)).await;
    let origin = s.path().join("origin");
    origin_repo(&origin);
    s.configure(&checkout_entry(&origin, "      branch: main\n"));
    let b = &s.blaise;
    let runner = s.runner("box-1");

    // Start: the agent works in the clone (its working directory).
    let id = b
        .new_session(
            "script",
            "run echo \"at $(pwd) readme=$(cat README.md)\" && echo wip > wip.txt && echo changed >> README.md",
        )
        .await;
    let view = b
        .wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    let clone = s.workspace(&view).join("repo");
    let text = b.transcript_text(&id).await;
    assert!(
        text.contains(&format!("at {} readme=second", clone.display())),
        "the agent ran in the clone of main:\n{text}"
    );
    // The plug's optional `git-token`, left out here, is `check`'s one note
    // and no run's business.
    assert!(
        !runner.stderr().contains("git-token"),
        "{}",
        runner.stderr()
    );
    let checked = std::process::Command::new(blaise_tests::blaise::runner_binary())
        .arg("--cache-dir")
        .arg(&s.cache)
        .args(["check", "--config"])
        .arg(&s.config)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&checked.stdout).into_owned()
        + &String::from_utf8_lossy(&checked.stderr);
    assert!(checked.status.success(), "{said}");
    assert_eq!(said.matches("git-token").count(), 1, "one line:\n{said}");
    assert!(
        said.contains("note: plug `checkout` can use the secret `git-token`"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(clone.join("wip.txt")).unwrap(),
        "wip\n"
    );

    // Meanwhile upstream moves on.
    std::fs::write(origin.join("NEWS"), "third\n").unwrap();
    git(&origin, &["add", "NEWS"]);
    git(&origin, &["commit", "--quiet", "-m", "third"]);
    let third = git(&origin, &["rev-parse", "HEAD"]).trim().to_owned();

    // A fresh runner process resumes: the new commit is fetched, the work in
    // progress (an untracked file, an uncommitted change) is untouched.
    runner.stop().await;
    let runner = s.runner("box-2");
    b.send(
        &id,
        "run echo \"wip=$(cat wip.txt) readme=$(tr '\\n' ' ' < README.md) upstream=$(git rev-parse origin/main)\"",
    )
    .await
    .unwrap();
    b.wait_for_text(
        &id,
        &format!("wip=wip readme=second changed  upstream={third}"),
        MINUTE,
    )
    .await;
    assert!(
        !clone.join("NEWS").exists(),
        "resume never merges or resets"
    );
    b.wait_for(&id, "the second pause", MINUTE, |v| v["state"] == "paused")
        .await;

    // Closed while paused: a teardown run, taken by yet another process.
    runner.stop().await;
    s.tear_down_in_a_fresh_process(&id).await;
    assert!(!clone.exists(), "the clone is removed");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_cannot_make_the_checkouts_git_run_its_code() {
    if !have(&["git"]) {
        return;
    }
    let s = Stage::new(settings(1_500, IdlePolicy::Pause)).await;
    let origin = s.path().join("origin");
    origin_repo(&origin);
    s.configure(&checkout_entry(&origin, "      branch: main\n"));
    let b = &s.blaise;
    let _runner = s.runner("box-1");
    // The agent (in a sandbox, say) plants what would make the host-side git
    // of the next resume run its code: a hook run on every ref update, an
    // fsmonitor, a hooks directory of its own, an upload-pack command.
    let marker = |n: u32| s.path().join(format!("ran-{n}"));
    let plant = format!(
        "run printf '#!/bin/sh\\ntouch {m1}\\n' > .git/hooks/reference-transaction && chmod +x .git/hooks/reference-transaction \
         && mkdir -p ../mine && printf '#!/bin/sh\\ntouch {m2}\\n' > ../mine/reference-transaction && chmod +x ../mine/reference-transaction \
         && git config core.hooksPath \"$(cd .. && pwd)/mine\" \
         && printf '#!/bin/sh\\ntouch {m3}\\n' > ../fsmon && chmod +x ../fsmon && git config core.fsmonitor \"$(cd .. && pwd)/fsmon\" \
         && git config remote.origin.uploadpack 'touch {m4}; git-upload-pack' && echo planted",
        m1 = marker(1).display(),
        m2 = marker(2).display(),
        m3 = marker(3).display(),
        m4 = marker(4).display(),
    );
    let id = b.new_session("script", &plant).await;
    b.wait_for_text(&id, "tool_output: planted", MINUTE).await;
    b.wait_for(&id, "the pause", MINUTE, |v| v["state"] == "paused")
        .await;
    // Upstream moves, so that the resume's fetch updates a ref.
    std::fs::write(origin.join("NEWS"), "third\n").unwrap();
    git(&origin, &["add", "NEWS"]);
    git(&origin, &["commit", "--quiet", "-m", "third"]);
    let third = git(&origin, &["rev-parse", "HEAD"]).trim().to_owned();
    // (The agent's own git may run the agent's code: that is the agent's business.)
    b.send(
        &id,
        "run echo \"upstream=$(git -c core.fsmonitor=false -c core.hooksPath=/dev/null rev-parse origin/main)\"",
    )
        .await
        .unwrap();
    b.wait_for_text(&id, &format!("upstream={third}"), MINUTE)
        .await;
    for n in 1..=4 {
        assert!(
            !marker(n).exists(),
            "the checkout's git ran the agent's code ({n})"
        );
    }
}

#[tokio::test]
async fn a_private_repository_is_cloned_with_the_granted_token_which_appears_nowhere() {
    if !have(&["git"]) {
        return;
    }
    let w = World::new();
    let served = w.tmp.path().join("served");
    origin_repo(&served.join("private.git"));
    let server = GitHttp::start(served, "x-access-token", TOKEN).await;
    let token_file = w.tmp.path().join("token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    let checkout = w.host.load(&plug("plugs/checkout")).await.unwrap();
    let config = json!({ "repo": format!("{}private.git", server.url) });

    // Without the secret granted: refused by the server, no prompt, a clear error.
    let plain = setup(
        "checkout",
        &checkout,
        config.clone(),
        allow_git(),
        Limits::default(),
    );
    let mut run = w.instance(plain, "s-1", RunKind::Start).await;
    let err = run.on_start().await.unwrap_err().to_string();
    assert!(
        err.contains("checkout") && err.contains("with.repo"),
        "{err}"
    );
    assert!(!w.workspace.join("repo").exists());

    // With it: cloned; the token is in no log line, no error, no file of the clone.
    let allow = Allow {
        secrets: [("git-token".into(), SecretSource::File(token_file))].into(),
        ..allow_git()
    };
    let granted = setup("checkout", &checkout, config, allow, Limits::default());
    let (logs, _guard) = LogCapture::start();
    let mut run = w.instance(granted, "s-2", RunKind::Start).await;
    let launch = run.on_start().await.unwrap();
    let clone = w.workspace.join("repo");
    assert_eq!(launch.working_dir.as_deref(), Some(clone.to_str().unwrap()));
    assert_eq!(
        std::fs::read_to_string(clone.join("README.md")).unwrap(),
        "second\n"
    );
    assert!(
        server
            .seen
            .lock()
            .unwrap()
            .contains(&format!("x-access-token:{TOKEN}")),
        "the server got the token"
    );
    let mut everything = logs.text();
    for entry in walk(&clone.join(".git")) {
        everything.push_str(&String::from_utf8_lossy(&std::fs::read(entry).unwrap()));
    }
    assert!(!everything.contains(TOKEN), "the token leaked");
}

#[tokio::test]
async fn a_commit_can_be_checked_out_shallow_and_detached() {
    if !have(&["git"]) {
        return;
    }
    let w = World::new();
    let origin = w.tmp.path().join("origin");
    let first = origin_repo(&origin);
    let checkout = w.host.load(&plug("plugs/checkout")).await.unwrap();
    let config = json!({ "repo": origin, "commit": first, "depth": 1, "path": "src/app" });
    let mut run = w
        .instance(
            setup(
                "checkout",
                &checkout,
                config,
                allow_git(),
                Limits::default(),
            ),
            "s",
            RunKind::Start,
        )
        .await;
    run.on_start().await.unwrap();
    let clone = w.workspace.join("src/app");
    assert_eq!(git(&clone, &["rev-parse", "HEAD"]).trim(), first);
    assert_eq!(
        git(&clone, &["rev-list", "--count", "HEAD"]).trim(),
        "1",
        "shallow"
    );
    assert_eq!(
        std::fs::read_to_string(clone.join("README.md")).unwrap(),
        "first\n"
    );
}

/// A start run of the checkout plug for `session`, in its own workspace
/// under `w` (all sessions of `w` share the plug's storage).
async fn start_in(
    w: &World,
    checkout: &std::sync::Arc<blaise_runner::host::LoadedPlug>,
    session: &str,
    config: serde_json::Value,
    allow: Allow,
) -> (
    std::path::PathBuf,
    Result<blaise_runner::host::bindings::Contribution, blaise_runner::host::HookError>,
) {
    let workspace = w.tmp.path().join(format!("ws-{session}"));
    std::fs::create_dir_all(&workspace).unwrap();
    let run = blaise_tests::run(session, RunKind::Start, &workspace, w.state.clone());
    let setup = setup("checkout", checkout, config, allow, Limits::default());
    let mut instance = blaise_runner::host::PlugInstance::new(&w.host, setup, run)
        .await
        .unwrap();
    let started = instance.on_start().await;
    (workspace, started)
}

#[tokio::test]
async fn with_storage_each_start_copies_a_fresh_mirror_that_shares_nothing_with_the_clone() {
    if !have(&["git"]) {
        return;
    }
    let w = World::new();
    let origin = w.tmp.path().join("origin");
    let first = origin_repo(&origin);
    let checkout = w.host.load(&plug("plugs/checkout")).await.unwrap();
    let allow = Allow {
        storage: true,
        ..allow_git()
    };
    let main = json!({ "repo": origin, "branch": "main" });
    let mirrors = w.tmp.path().join("plug-storage/checkout/mirrors");

    // The first start makes the mirror, and the clone from it.
    let (ws1, started) = start_in(&w, &checkout, "s1", main.clone(), allow.clone()).await;
    started.unwrap();
    let made: Vec<_> = std::fs::read_dir(&mirrors)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(made.len(), 1, "one mirror, no partial left: {made:?}");
    let mirror = made[0].clone();
    let clone1 = ws1.join("repo");
    assert_eq!(
        std::fs::read_to_string(clone1.join("README.md")).unwrap(),
        "second\n"
    );

    // The clone shares no file with the mirror: no hardlink, no alternates.
    assert!(!clone1.join(".git/objects/info/alternates").exists());
    for file in walk(&clone1.join(".git/objects")) {
        use std::os::unix::fs::MetadataExt;
        assert_eq!(
            std::fs::metadata(&file).unwrap().nlink(),
            1,
            "{} is linked elsewhere",
            file.display()
        );
    }
    // So an agent that wrecks its clone's objects wrecks only its clone.
    for file in walk(&clone1.join(".git/objects")) {
        let mut perms = std::fs::metadata(&file).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o644);
        std::fs::set_permissions(&file, perms).unwrap();
        std::fs::write(&file, b"wrecked").unwrap();
    }

    // Upstream moves on; the next session's start fetches into the mirror and
    // sees it, with `origin` pointing at the repository, not the mirror.
    std::fs::write(origin.join("NEWS"), "third\n").unwrap();
    git(&origin, &["add", "NEWS"]);
    git(&origin, &["commit", "--quiet", "-m", "third"]);
    let third = git(&origin, &["rev-parse", "HEAD"]).trim().to_owned();
    let (ws2, started) = start_in(&w, &checkout, "s2", main.clone(), allow.clone()).await;
    started.unwrap();
    let clone2 = ws2.join("repo");
    assert_eq!(git(&clone2, &["rev-parse", "HEAD"]).trim(), third);
    assert_eq!(
        git(&clone2, &["remote", "get-url", "origin"]).trim(),
        origin.to_str().unwrap()
    );
    assert_eq!(git(&clone2, &["rev-parse", "origin/main"]).trim(), third);
    git(&clone2, &["fsck", "--no-progress"]);
    let reflog = std::fs::read_to_string(clone2.join(".git/logs/HEAD")).unwrap();
    assert!(
        reflog.contains(&format!("clone: from {}", mirror.display())),
        "cloned from the mirror: {reflog}"
    );

    // A branch, and a commit (not shallow), from the same mirror.
    let feature = json!({ "repo": origin, "branch": "feature" });
    let (ws3, started) = start_in(&w, &checkout, "s3", feature, allow.clone()).await;
    started.unwrap();
    assert!(ws3.join("repo/feature.txt").exists());
    let commit = json!({ "repo": origin, "commit": first });
    let (ws4, started) = start_in(&w, &checkout, "s4", commit, allow.clone()).await;
    started.unwrap();
    assert_eq!(git(&ws4.join("repo"), &["rev-parse", "HEAD"]).trim(), first);

    // A branch the repository does not have fails naming the field, and
    // leaves no half clone.
    let missing = json!({ "repo": origin, "branch": "nope" });
    let (ws5, started) = start_in(&w, &checkout, "s5", missing, allow.clone()).await;
    let err = started.unwrap_err();
    assert!(
        err.to_string()
            .starts_with("plug `checkout` failed in on-start: `with.branch`:"),
        "{err}"
    );
    assert!(!ws5.join("repo").exists());
    assert_eq!(
        std::fs::read_dir(&mirrors).unwrap().count(),
        1,
        "still one mirror for the repository"
    );

    // Without the storage grant: a clone from the repository, as before.
    let (ws6, started) = start_in(&w, &checkout, "s6", main, allow_git()).await;
    started.unwrap();
    let reflog = std::fs::read_to_string(ws6.join("repo/.git/logs/HEAD")).unwrap();
    assert!(
        reflog.contains(&format!("clone: from {}", origin.display())),
        "{reflog}"
    );
}

/// With no branch asked for, a session gets the repository's default branch
/// as it is at its start, also after the repository changed it since the
/// mirror was made (and deleted the old one). Storage loses what no start
/// uses: a partial mirror left by a start that died mid-clone once it is old
/// enough to be no live clone's, and a mirror no start used for 30 days.
#[tokio::test]
async fn mirrors_follow_the_default_branch_and_what_no_start_uses_goes() {
    if !have(&["git"]) {
        return;
    }
    let w = World::new();
    let origin = w.tmp.path().join("origin");
    origin_repo(&origin);
    let checkout = w.host.load(&plug("plugs/checkout")).await.unwrap();
    let allow = Allow {
        storage: true,
        ..allow_git()
    };
    let default = json!({ "repo": origin });
    let (ws1, started) = start_in(&w, &checkout, "s1", default.clone(), allow.clone()).await;
    started.unwrap();
    let head = |ws: &Path| git(&ws.join("repo"), &["symbolic-ref", "--short", "HEAD"]);
    assert_eq!(head(&ws1).trim(), "main");

    // The repository renames its default branch and moves on.
    git(&origin, &["branch", "--move", "main", "trunk"]);
    std::fs::write(origin.join("NEWS"), "on trunk\n").unwrap();
    git(&origin, &["add", "NEWS"]);
    git(&origin, &["commit", "--quiet", "-m", "on trunk"]);
    let tip = git(&origin, &["rev-parse", "HEAD"]).trim().to_owned();

    // Partials: one a day and a minute old (a start that died), one fresh
    // (a start cloning beside this one).
    let mirrors = w.tmp.path().join("plug-storage/checkout/mirrors");
    let (dead, live) = (mirrors.join(".partial-dead"), mirrors.join(".partial-live"));
    for dir in [&dead, &live] {
        std::fs::create_dir_all(dir.join("objects")).unwrap();
    }
    let day_ago = std::time::SystemTime::now() - Duration::from_secs(24 * 60 * 60 + 60);
    std::fs::File::open(&dead)
        .unwrap()
        .set_modified(day_ago)
        .unwrap();
    // Mirrors of other repositories: one last used 31 days ago, one a day
    // ago, one that does not say (made by an older plug: taken as used now).
    // And this repository's own, as if unused for 31 days: it is the one the
    // start uses, so it stays.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let days_ago = |days: u64| (now - days * 24 * 60 * 60).to_string();
    let ours = std::fs::read_dir(&mirrors)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "git"))
        .unwrap();
    let (unused, recent, unmarked) = (
        mirrors.join("00000000000000aa.git"),
        mirrors.join("00000000000000bb.git"),
        mirrors.join("00000000000000cc.git"),
    );
    for dir in [&unused, &recent, &unmarked] {
        std::fs::create_dir_all(dir.join("objects")).unwrap();
    }
    std::fs::write(unused.join("blaise-last-used"), days_ago(31)).unwrap();
    std::fs::write(recent.join("blaise-last-used"), days_ago(1)).unwrap();
    std::fs::write(ours.join("blaise-last-used"), days_ago(31)).unwrap();
    std::fs::write(ours.join("sentinel"), "kept").unwrap();

    let (ws2, started) = start_in(&w, &checkout, "s2", default, allow).await;
    started.unwrap();
    let clone2 = ws2.join("repo");
    assert_eq!(
        head(&ws2).trim(),
        "trunk",
        "the default branch as it is now"
    );
    assert_eq!(git(&clone2, &["rev-parse", "HEAD"]).trim(), tip);
    assert_eq!(
        std::fs::read_to_string(clone2.join("NEWS")).unwrap(),
        "on trunk\n"
    );
    let reflog = std::fs::read_to_string(clone2.join(".git/logs/HEAD")).unwrap();
    assert!(
        reflog.contains("clone: from") && reflog.contains("mirrors/"),
        "from the mirror: {reflog}"
    );
    assert!(!dead.exists(), "the dead start's partial mirror is gone");
    assert!(live.exists(), "a partial that may be in use stays");
    assert!(!unused.exists(), "a mirror unused for 31 days is gone");
    assert!(recent.exists() && unmarked.exists());
    let used = |dir: &Path| -> u64 {
        std::fs::read_to_string(dir.join("blaise-last-used"))
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(
        ours.join("sentinel").exists(),
        "the start's own mirror was fetched, not removed and made again"
    );
    assert!(used(&ours) >= now, "this start used its mirror: marked now");
    assert!(
        used(&unmarked) >= now,
        "a mirror that did not say is taken as used now"
    );
}

#[tokio::test]
async fn bad_config_fails_on_start_naming_the_plug_and_the_field() {
    if !have(&["git"]) {
        return;
    }
    let w = World::new();
    let origin = w.tmp.path().join("origin");
    let first = origin_repo(&origin);
    let checkout = w.host.load(&plug("plugs/checkout")).await.unwrap();
    let cases = [
        (
            json!({ "repo": w.tmp.path().join("no-such-repo") }),
            "with.repo",
            "cloning",
        ),
        (
            json!({ "repo": "relative/path" }),
            "with.repo",
            "neither a URL nor an absolute path",
        ),
        (
            json!({ "repo": origin, "branch": "main", "commit": first }),
            "with.commit",
            "cannot both be set",
        ),
        (
            json!({ "repo": origin, "branch": "no-such-branch" }),
            "with.branch",
            "no-such-branch",
        ),
        (
            json!({ "repo": origin, "path": "../outside" }),
            "with.path",
            "inside the workspace",
        ),
    ];
    for (config, field, words) in cases {
        let mut run = w
            .instance(
                setup(
                    "my-checkout",
                    &checkout,
                    config.clone(),
                    allow_git(),
                    Limits::default(),
                ),
                "s",
                RunKind::Start,
            )
            .await;
        let err = run.on_start().await.unwrap_err().to_string();
        assert!(
            err.contains("my-checkout") && err.contains(field) && err.contains(words),
            "{config}: {err}"
        );
        assert_eq!(
            std::fs::read_dir(&w.workspace).unwrap().count(),
            0,
            "{config}: nothing left"
        );
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

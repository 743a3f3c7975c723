//! Setup against real files in a scratch folder.

use super::claude::hook_commands;
use super::*;
use serde_json::Value;

fn cx(dir: &Path) -> SetupContext {
    SetupContext {
        config_dir: dir.to_path_buf(),
        tern: "/opt/tern/bin/tern".into(),
    }
}

fn run(agent: AgentKind, action: Action, cx: &SetupContext) -> Plan {
    let plan = plan(agent, action, cx).expect("plan");
    apply(&plan).expect("apply");
    plan
}

const USER_SETTINGS: &str = r#"{
  "model": "opus",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/ding"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/check"
          }
        ]
      }
    ]
  },
  "permissions": {
    "allow": [
      "Bash(ls:*)"
    ]
  }
}
"#;

#[test]
fn claude_hooks_are_merged_kept_in_order_and_removed_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("settings.json");
    std::fs::write(&file, USER_SETTINGS).unwrap();
    let cx = cx(tmp.path());
    let first = run(AgentKind::Claude, Action::Install, &cx);
    assert!(first.changes());
    let text = std::fs::read_to_string(&file).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    // The user's keys and hooks stay, in their order; tern's hook follows theirs.
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["model", "hooks", "permissions"]);
    let stop = v["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop[0]["hooks"][0]["command"], "~/bin/ding");
    assert_eq!(
        stop[1]["hooks"][0]["command"],
        "/opt/tern/bin/tern msg agent-event --agent claude"
    );
    for event in CLAUDE_EVENTS {
        assert!(
            v["hooks"][event]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(hook_commands)
                .any(is_tern_line),
            "{event}"
        );
    }
    assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], "Bash");
    let backup = std::fs::read_to_string(tmp.path().join("settings.json.tern-backup")).unwrap();
    assert_eq!(backup, USER_SETTINGS);
    // Twice: nothing changes.
    let second = run(AgentKind::Claude, Action::Install, &cx);
    assert!(!second.changes());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    // Removed: the user's file, byte for byte, and no backup left.
    run(AgentKind::Claude, Action::Remove, &cx);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), USER_SETTINGS);
    assert!(!tmp.path().join("settings.json.tern-backup").exists());
}

#[test]
fn a_file_tern_made_is_removed_and_a_later_user_edit_survives_removal() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("settings.json");
    let cx = cx(tmp.path());
    run(AgentKind::Claude, Action::Install, &cx);
    assert!(file.exists());
    run(AgentKind::Claude, Action::Remove, &cx);
    assert!(!file.exists(), "tern made it, tern takes it away");

    std::fs::write(&file, USER_SETTINGS).unwrap();
    run(AgentKind::Claude, Action::Install, &cx);
    // The user edits after setup: their edit stays when tern's hooks go.
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("\"opus\"", "\"sonnet\"")).unwrap();
    run(AgentKind::Claude, Action::Remove, &cx);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["model"], "sonnet");
    assert!(
        !std::fs::read_to_string(&file)
            .unwrap()
            .contains("agent-event")
    );
    assert_eq!(v["hooks"]["Stop"].as_array().unwrap().len(), 1);
}

#[test]
fn a_dry_run_writes_nothing_and_shows_the_change() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("settings.json");
    std::fs::write(&file, USER_SETTINGS).unwrap();
    let plan = plan(AgentKind::Claude, Action::Install, &cx(tmp.path())).unwrap();
    let diff = plan.diff();
    assert!(diff.contains("+") && diff.contains("agent-event"), "{diff}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), USER_SETTINGS);
    assert!(!tmp.path().join("settings.json.tern-backup").exists());
}

#[test]
fn files_tern_cannot_read_are_left_untouched_with_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("settings.json");
    std::fs::write(&file, "{\n  \"model\": \"opus\",\n  oops\n}\n").unwrap();
    let err = plan(AgentKind::Claude, Action::Install, &cx(tmp.path())).unwrap_err();
    assert!(err.contains("settings.json:3:"), "{err}");
    std::fs::write(&file, "[1]").unwrap();
    let err = plan(AgentKind::Claude, Action::Install, &cx(tmp.path())).unwrap_err();
    assert!(err.contains("not a JSON object"), "{err}");
    std::fs::write(&file, r#"{"hooks": []}"#).unwrap();
    assert!(plan(AgentKind::Claude, Action::Install, &cx(tmp.path())).is_err());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), r#"{"hooks": []}"#);
    // A FIFO is refused without being opened.
    std::fs::remove_file(&file).unwrap();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &file,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    let err = plan(AgentKind::Claude, Action::Install, &cx(tmp.path())).unwrap_err();
    assert!(err.contains("not a regular file"), "{err}");
}

#[test]
fn a_read_only_file_or_one_changed_meanwhile_is_not_written() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("settings.json");
    std::fs::write(&file, USER_SETTINGS).unwrap();
    let cx = cx(tmp.path());
    let plan = plan(AgentKind::Claude, Action::Install, &cx).unwrap();
    // Edited between reading and writing (another setup, the agent itself).
    std::fs::write(&file, "{}\n").unwrap();
    let err = apply(&plan).unwrap_err();
    assert!(err.contains("changed while"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{}\n");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    let plan = super::plan(AgentKind::Claude, Action::Install, &cx).unwrap();
    let err = apply(&plan).unwrap_err();
    assert!(err.contains("read-only"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{}\n");
}

#[test]
fn a_symlinked_settings_file_is_edited_where_it_points() {
    let tmp = tempfile::tempdir().unwrap();
    let dotfiles = tmp.path().join("dotfiles");
    std::fs::create_dir(&dotfiles).unwrap();
    std::fs::write(dotfiles.join("claude.json"), USER_SETTINGS).unwrap();
    let conf = tmp.path().join("conf");
    std::fs::create_dir(&conf).unwrap();
    std::os::unix::fs::symlink(dotfiles.join("claude.json"), conf.join("settings.json")).unwrap();
    let plan = run(AgentKind::Claude, Action::Install, &cx(&conf));
    assert!(plan.notes.iter().any(|n| n.contains("symlink")));
    assert!(
        std::fs::symlink_metadata(conf.join("settings.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(dotfiles.join("claude.json"))
            .unwrap()
            .contains("agent-event")
    );
}

const USER_CODEX: &str = r#"# my codex settings
model = "o4-mini"  # fast

[tui]
# keep it quiet
notifications = false

[profiles.work]
model = "gpt-5"
"#;

#[test]
fn codex_notify_is_added_beside_the_users_keys_and_removed_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("config.toml");
    std::fs::write(&file, USER_CODEX).unwrap();
    let cx = cx(tmp.path());
    run(AgentKind::Codex, Action::Install, &cx);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("# keep it quiet") && text.contains("# fast"),
        "{text}"
    );
    let t: toml::Table = toml::from_str(&text).unwrap();
    let notify: Vec<&str> = t["notify"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        notify,
        [
            "/opt/tern/bin/tern",
            "msg",
            "agent-event",
            "--agent",
            "codex"
        ]
    );
    // The user's own choice stands; what they did not set is added.
    assert_eq!(t["tui"]["notifications"].as_bool(), Some(false));
    assert_eq!(t["tui"]["notification_method"].as_str(), Some("osc9"));
    assert_eq!(t["profiles"]["work"]["model"].as_str(), Some("gpt-5"));
    assert!(!run(AgentKind::Codex, Action::Install, &cx).changes());
    run(AgentKind::Codex, Action::Remove, &cx);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), USER_CODEX);
}

#[test]
fn a_notify_of_the_users_is_kept_and_said() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("config.toml");
    std::fs::write(&file, "notify = [\"notify-send\", \"codex\"]\n").unwrap();
    let plan = run(AgentKind::Codex, Action::Install, &cx(tmp.path()));
    assert!(
        plan.notes
            .iter()
            .any(|n| n.contains("notify program of yours"))
    );
    let t: toml::Table = toml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        t["notify"].as_array().unwrap()[0].as_str(),
        Some("notify-send")
    );
    let err = super::plan(AgentKind::Codex, Action::Install, &{
        std::fs::write(&file, "model = \n").unwrap();
        cx(tmp.path())
    })
    .unwrap_err();
    assert!(err.contains("config.toml:1:"), "{err}");
}

#[test]
fn a_codex_file_tern_made_goes_on_removal() {
    let tmp = tempfile::tempdir().unwrap();
    let cx = cx(tmp.path());
    run(AgentKind::Codex, Action::Install, &cx);
    assert!(tmp.path().join("config.toml").exists());
    run(AgentKind::Codex, Action::Remove, &cx);
    assert!(!tmp.path().join("config.toml").exists());
}

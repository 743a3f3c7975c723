//! Agents come back after a restart. A tab opened to run a program (`tern -e`,
//! `tern msg new-tab -- CMD`, a worktree's start command) records that command line in
//! the session; on restore a known agent is started again in its folder with its own
//! resume flag (Claude Code `claude --continue`, Codex `codex resume --last`, Aider
//! `aider --restore-chat-history`, Gemini CLI `gemini --resume`), from a table the
//! config can extend or empty. Any other program comes back as a shell with one dim line
//! saying what ran there and how to run it again: re-running an arbitrary command
//! (a build, a deploy) on start would surprise.

use serde::{Deserialize, Serialize};

/// How to resume one program: `program` (its file name) is started again with `args`
/// instead of the arguments it had.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResumeRule {
    pub program: String,
    pub args: Vec<String>,
}

impl ResumeRule {
    fn new(program: &str, args: &[&str]) -> ResumeRule {
        ResumeRule {
            program: program.to_owned(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
        }
    }
}

/// The agents tern knows how to resume.
pub fn default_rules() -> Vec<ResumeRule> {
    vec![
        ResumeRule::new("claude", &["--continue"]),
        ResumeRule::new("codex", &["resume", "--last"]),
        ResumeRule::new("aider", &["--restore-chat-history"]),
        ResumeRule::new("gemini", &["--resume"]),
    ]
}

/// What a restored pane starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Restore {
    /// The program again, resumed: program and arguments.
    Resume(Vec<String>),
    /// A shell, with this line shown above its prompt.
    Shell { note: String },
}

/// The plan for a pane that ran `command` before the restart. `found` says whether a
/// program is installed (a session naming a program that is gone gets a shell and a
/// note saying so).
pub fn plan(command: &[String], rules: &[ResumeRule], found: impl Fn(&str) -> bool) -> Restore {
    let Some(program) = command.first() else {
        return Restore::Shell {
            note: String::new(),
        };
    };
    let line =
        shlex::try_join(command.iter().map(String::as_str)).unwrap_or_else(|_| command.join(" "));
    let name = std::path::Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let rule = rules.iter().find(|r| r.program == name);
    match rule {
        Some(_) if !found(program) => Restore::Shell {
            note: format!("{line} ran here before the restart; {program} is not installed now"),
        },
        Some(rule) => {
            let mut again = vec![program.clone()];
            again.extend(rule.args.iter().cloned());
            Restore::Resume(again)
        }
        None => Restore::Shell {
            note: format!("{line} ran here before the restart; run it again with: {line}"),
        },
    }
}

/// `text` safe to show as terminal output: control characters (C0, DEL, C1) become
/// `�`, so a command line from a session file cannot send escape sequences.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect()
}

/// Whether `program` can be started: a path that is an executable file, or a name
/// found on `PATH`.
pub fn installed(program: &str, path: Option<&std::ffi::OsStr>) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    let executable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return executable(std::path::Path::new(program));
    }
    path.is_some_and(|path| std::env::split_paths(path).any(|dir| executable(&dir.join(program))))
}

/// A start command as typed (`claude --model opus`): split like a shell would, without
/// running one. `None` for an empty or unbalanced line.
pub fn split_command(line: &str) -> Option<Vec<String>> {
    shlex::split(line).filter(|words| !words.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        split_command(line).unwrap()
    }

    #[test]
    fn known_agents_resume_with_their_flag_others_come_back_as_a_shell() {
        let rules = default_rules();
        let all = |_: &str| true;
        assert_eq!(
            plan(&words("claude"), &rules, all),
            Restore::Resume(words("claude --continue"))
        );
        assert_eq!(
            plan(&words("/opt/bin/codex --model o3"), &rules, all),
            Restore::Resume(words("/opt/bin/codex resume --last"))
        );
        assert_eq!(
            plan(&words("aider"), &rules, all),
            Restore::Resume(words("aider --restore-chat-history"))
        );
        assert_eq!(
            plan(&words("gemini"), &rules, all),
            Restore::Resume(words("gemini --resume"))
        );
        assert_eq!(
            plan(&words("make 'deploy prod'"), &rules, all),
            Restore::Shell {
                note: "make 'deploy prod' ran here before the restart; run it again with: make 'deploy prod'".into()
            }
        );
        // An emptied table resumes nothing.
        assert!(matches!(
            plan(&words("claude"), &[], all),
            Restore::Shell { .. }
        ));
    }

    #[test]
    fn a_program_that_is_gone_comes_back_as_a_shell_that_says_so() {
        let r = plan(&words("claude"), &default_rules(), |_| false);
        assert_eq!(
            r,
            Restore::Shell {
                note: "claude ran here before the restart; claude is not installed now".into()
            }
        );
    }

    #[test]
    fn installed_looks_on_the_path() {
        let tmp = tempfile::tempdir().unwrap();
        let prog = tmp.path().join("agent");
        std::fs::write(&prog, "#!/bin/sh\n").unwrap();
        assert!(
            !installed("agent", Some(tmp.path().as_os_str())),
            "not executable"
        );
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(installed("agent", Some(tmp.path().as_os_str())));
        assert!(installed(prog.to_str().unwrap(), None));
        assert!(!installed("agent", None));
        assert_eq!(split_command("  "), None);
        assert_eq!(split_command("a 'b"), None);
    }

    /// A command line naming escape sequences is shown, not obeyed.
    #[test]
    fn a_note_carries_no_control_characters() {
        let r = plan(
            &["printf".into(), "\x1b]52;c;aGk=\x07\u{9b}2J".into()],
            &default_rules(),
            |_| true,
        );
        let Restore::Shell { note } = r else {
            panic!("{r:?}")
        };
        let shown = printable(&note);
        assert!(!shown.chars().any(char::is_control), "{shown:?}");
        assert!(shown.contains("]52;c;aGk="), "{shown:?}");
    }
}

//! `tern agents setup claude|codex [--dry-run] [--remove]`: the agent's own
//! configuration edited so that it reports to tern (`tern_core::agent::setup`).

use tern_core::agent::setup::{self, Action, SetupContext};

use crate::cli::{AgentArg, AgentsAction};

/// Runs the action: what to print, or the error (exit status 1).
pub fn run(action: AgentsAction) -> Result<String, String> {
    let AgentsAction::Setup {
        agent,
        dry_run,
        remove,
    } = action;
    let kind = agent.kind();
    let cx = SetupContext::from_env(kind, tern_program())?;
    let action = if remove {
        Action::Remove
    } else {
        Action::Install
    };
    let plan = setup::plan(kind, action, &cx)?;
    let mut out = String::new();
    for note in &plan.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    let file = plan.file.display();
    if !plan.changes() {
        out.push_str(&match action {
            Action::Install => format!("{file} already reports to tern; nothing changed\n"),
            Action::Remove => format!("{file} has none of tern's entries; nothing changed\n"),
        });
        return Ok(out);
    }
    if dry_run {
        out.push_str(&plan.diff());
        out.push_str("(dry run: nothing written)\n");
        return Ok(out);
    }
    setup::apply(&plan)?;
    out.push_str(&match (action, agent, plan.after.is_some()) {
        (Action::Install, AgentArg::Claude, _) => format!(
            "{file}: tern's hook added for {}\n",
            setup::CLAUDE_EVENTS.join(", ")
        ),
        (Action::Install, AgentArg::Codex, _) => {
            format!("{file}: notify and [tui] notifications set to report to tern\n")
        }
        (Action::Remove, _, true) => format!("{file}: tern's entries removed\n"),
        (Action::Remove, _, false) => format!("{file}: removed (tern had made it)\n"),
    });
    if plan.backup {
        out.push_str(&format!(
            "backup of the file before: {}{}\n",
            plan.real.display(),
            setup::BACKUP_SUFFIX
        ));
    }
    Ok(out)
}

/// The tern the hook runs: this binary, by its full path (the agent's PATH may not
/// have it), else `tern`.
fn tern_program() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(str::to_owned))
        .unwrap_or_else(|| "tern".to_owned())
}

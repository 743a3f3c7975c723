//! Workspace rules both faces share, through the binary: a hidden pane's badges and
//! the OSC 52 decision are the core's, so `tern msg list` and the headless face see
//! what the window shows. Each scenario runs in the window (Xvfb) and headless.

mod common;

use std::path::Path;

use common::user::{Face, Start, Tern};

fn badges(t: &Tern, pane: u64) -> serde_json::Value {
    t.pane(pane)
        .unwrap_or_else(|| panic!("no pane {pane} in {:?}", t.panes()))["badges"]
        .clone()
}

/// Shell lines that wait for `file`.
fn wait_file(file: &Path) -> String {
    format!("while [ ! -e '{}' ]; do sleep 0.05; done; ", file.display())
}

/// A pane that rings its bell while another tab is in front collects a bell badge,
/// in `list` on both faces; shown in the window, it loses it (the user saw it), while
/// headless, where no face shows a pane, it keeps it. Catches badges kept by the
/// window alone (headless `list` would have none) or never cleared by the core.
fn a_hidden_pane_collects_badges_until_shown(face: Face) {
    let mut t = Start::new(face, "badges").run();
    let go = t.home.join("ring");
    let ringer = t.new_tab(&format!("{}printf '\\a'; exec sleep 600", wait_file(&go)));
    // Another tab in front: the ringer is hidden on both faces.
    let front = t.new_tab("exec sleep 600");
    assert_ne!(front, ringer);
    assert_eq!(badges(&t, ringer)["bell"], false, "no bell yet");
    std::fs::write(&go, "").expect("step file");
    t.wait_for("the hidden pane's bell badge in list", |t| {
        (badges(t, ringer)["bell"] == true).then_some(())
    });
    t.msg(&["focus", "--pane", &ringer.to_string()]);
    match face {
        Face::Window => {
            t.wait_for("the badge gone once the window shows the pane", |t| {
                (badges(t, ringer)["bell"] == false).then_some(())
            });
        }
        Face::Headless => {
            // Focused, yet no face shows it: the badge stays for whoever asks.
            let entry = t.pane(ringer).expect("the ringer");
            assert_eq!(entry["focused"], true, "focused: {entry}");
            assert_eq!(entry["badges"]["bell"], true, "kept headless: {entry}");
        }
    }
}

common::user::on_both_faces! {
    a_hidden_pane_collects_badges_until_shown:
        badges_in_the_window, badges_headless;
}

/// A program asking to read the clipboard (OSC 52) is refused by the core's rule,
/// headless too, and said: tern's stderr names the pane and the setting. Catches the
/// decision living in the window only (headless would be silent).
#[test]
fn an_osc52_read_is_refused_and_said_headless() {
    let mut t = Start::new(Face::Headless, "osc52").run();
    t.new_tab("printf '\\033]52;c;?\\a'; exec sleep 600");
    t.wait_for("the refusal said", |t| {
        t.stderr()
            .contains("tried to read the clipboard (refused; see clipboard.osc52_read")
            .then_some(())
    });
}

//! The diagnostics panel with egui_kittest (no display, no GPU): Ctrl+Shift+G opens it,
//! a flooding hidden pane's row moves, clicking a row names its pane, and what the open
//! panel costs per frame with 12 panes (printed, not asserted).

use std::sync::Arc;
use std::time::{Duration, Instant};

use tern_testkit::eventually;

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{Queryable as _, by};
use tern::window::app::Launch;
use tern::window::diagnostics::Diagnostics;
use tern_core::diagnostics::PaneLabel;
use tern_core::model::TermSize;
use tern_core::pipeline::{PaneId, Pipeline, PipelineConfig, SpawnSpec};

mod common;
use common::Slot;
use tern::window::app::TestView as _;

fn app_harness() -> Harness<'static, Slot> {
    let launch = Launch::new(SpawnSpec::command("cat", &[]).size(TermSize::new(80, 24)));
    common::app_harness(launch, egui::vec2(1200.0, 800.0))
}

/// The raw value of a table cell, found by its accessible label `"<pane> <column>"`.
fn cell<S>(h: &Harness<'_, S>, label: &str) -> u64 {
    let node = h.get_by_label(label);
    let value = node.value().unwrap_or_default();
    value
        .parse()
        .unwrap_or_else(|_| panic!("{label}: value {value:?}"))
}

fn panel_open(h: &Harness<'_, Slot>) -> bool {
    h.state()
        .as_ref()
        .is_some_and(|a| a.diagnostics().is_open())
}

#[test]
fn ctrl_shift_g_opens_the_panel_and_a_flooding_hidden_panes_row_moves() {
    let mut h = app_harness();
    h.step();
    // A second pane, hidden (parked), flooding through the app's own pipeline.
    let flood = h
        .state()
        .as_ref()
        .expect("app")
        .core()
        .pipeline()
        .spawn(&SpawnSpec::command("yes", &[]))
        .expect("spawn yes");
    assert!(!panel_open(&h));
    h.key_press_modifiers(Modifiers::CTRL | Modifiers::SHIFT, Key::G);
    h.step();
    assert!(panel_open(&h), "Ctrl+Shift+G opens the panel");
    let read_label = format!("pane {} read", flood.0);
    let parsed_label = format!("pane {} parsed", flood.0);
    // Wait for the first bytes (the child needs a moment to start).
    eventually(
        "a row for the flooding pane",
        Duration::from_secs(20),
        || {
            h.step();
            h.query_by_label(&read_label).is_some() && cell(&h, &read_label) > 0
        },
    );
    assert_eq!(cell(&h, &format!("pane {} state", flood.0)), 0, "parked");
    let (read1, parsed1) = (cell(&h, &read_label), cell(&h, &parsed_label));
    // The row moves: both counts grow past what the first frame showed.
    eventually("the row moves", Duration::from_secs(20), || {
        h.step();
        let (read2, parsed2) = (cell(&h, &read_label), cell(&h, &parsed_label));
        (read2 > read1 && parsed2 > parsed1)
            .then_some(())
            .ok_or_else(|| format!("read {read1} → {read2}, parsed {parsed1} → {parsed2}"))
    });
    assert_eq!(
        cell(&h, &format!("pane {} frames built / taken", flood.0)),
        0,
        "a parked pane gets no frames"
    );
    // The app's own pane (cat) has a row too: visible, with frames.
    let rows = h
        .query_all(by().role(Role::Cell).label_contains(" state"))
        .count();
    assert_eq!(rows, 2, "a row per pty");
    let main = {
        let app = h.state().as_ref().expect("app");
        app.core()
            .pane_label(app.pane().expect("the main pane"))
            .pane
    };
    assert_eq!(
        cell(&h, &format!("{main} state")),
        1,
        "cat's pane is visible"
    );
    // A flood can pause reading thousands of times a second; the breadcrumb ring hears of
    // it at most once a second (plus the matching resume).
    let crumbs = h
        .state()
        .as_ref()
        .expect("app")
        .core()
        .pipeline()
        .breadcrumbs()
        .into_iter()
        .filter(|c| c.pane == flood.0 && c.what.contains("reading"))
        .count();
    assert!(crumbs <= 2 * 30, "{crumbs} pause/resume breadcrumbs");
    h.key_press_modifiers(Modifiers::CTRL | Modifiers::SHIFT, Key::G);
    h.step();
    assert!(!panel_open(&h), "Ctrl+Shift+G closes it again");
    assert!(h.query_by_label(&read_label).is_none());
}

struct PanelState {
    diag: Diagnostics,
    clicked: Option<PaneId>,
    build_times: Vec<Duration>,
}

fn panel_harness(pipeline: Arc<Pipeline>) -> Harness<'static, PanelState> {
    let labels = |p: PaneId| PaneLabel {
        worktree: format!("wt-{}", p.0 % 3),
        tab: format!("tab {}", p.0 % 2),
        pane: format!("pane {}", p.0),
        id: None,
    };
    Harness::builder()
        .with_size(egui::vec2(1400.0, 1000.0))
        .allow_missing_glyphs()
        .build_ui_state(
            move |ui, s: &mut PanelState| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    let started = Instant::now();
                    if let Some(p) = s.diag.ui(ui, &pipeline, &labels) {
                        s.clicked = Some(p);
                    }
                    s.build_times.push(started.elapsed());
                });
            },
            PanelState {
                diag: Diagnostics::new("test font", None),
                clicked: None,
                build_times: Vec::new(),
            },
        )
}

#[test]
fn clicking_a_pane_in_the_table_names_it_for_the_app_to_focus() {
    let pipeline =
        Arc::new(Pipeline::start(PipelineConfig::default(), Arc::new(|| {})).expect("pipeline"));
    let a = pipeline
        .spawn(&SpawnSpec::command("sh", &["-c", "echo a; sleep 5"]))
        .expect("spawn");
    let b = pipeline
        .spawn(&SpawnSpec::command("sh", &["-c", "echo b; sleep 5"]))
        .expect("spawn");
    let mut h = panel_harness(pipeline);
    h.step();
    h.get_by_label(&format!("wt-{} / tab {} / pane {}", b.0 % 3, b.0 % 2, b.0))
        .click();
    h.step();
    assert_eq!(h.state().clicked, Some(b));
    let _ = a;
}

/// Not a timed assertion: prints what building the open panel costs per frame with 12
/// panes (4 flooding), for the report. Run with `--nocapture` to see it.
#[test]
fn open_panel_cost_per_frame_with_12_panes() {
    let pipeline =
        Arc::new(Pipeline::start(PipelineConfig::default(), Arc::new(|| {})).expect("pipeline"));
    for i in 0..12 {
        let spec = if i < 4 {
            SpawnSpec::command("yes", &[])
        } else {
            SpawnSpec::command(
                "sh",
                &[
                    "-c",
                    "while :; do printf 'tick\\033[6n\\n'; sleep 0.05; done",
                ],
            )
        };
        let pane = pipeline
            .spawn(&spec.size(TermSize::new(80, 24)))
            .expect("spawn");
        pipeline.set_visible(pane, i % 3 == 0);
    }
    let mut h = panel_harness(pipeline.clone());
    // Let a few samples accumulate so the plots have points.
    for _ in 0..20 {
        h.step();
        std::thread::sleep(Duration::from_millis(50));
    }
    h.state_mut().build_times.clear();
    const FRAMES: usize = 200;
    for _ in 0..FRAMES {
        h.step();
    }
    let mut t: Vec<Duration> = h.state().build_times.clone();
    t.sort();
    let pct = |q: f64| t[((t.len() - 1) as f64 * q).round() as usize];
    println!(
        "diagnostics panel build, 12 panes, {} frames: median {:?}, p99 {:?}, max {:?} ({} rows, {} samples)",
        t.len(),
        pct(0.5),
        pct(0.99),
        t[t.len() - 1],
        pipeline.report().len(),
        pipeline.samples().len(),
    );
    assert_eq!(t.len(), FRAMES);
    // Of which collecting the report (counters, samples, breadcrumbs):
    let labels = |p: PaneId| PaneLabel::unplaced(p);
    let mut c: Vec<Duration> = (0..FRAMES)
        .map(|_| {
            let started = Instant::now();
            let report = h.state().diag.report(&pipeline, &labels);
            let took = started.elapsed();
            assert_eq!(report.panes.len(), 12);
            took
        })
        .collect();
    c.sort();
    println!(
        "  of which collecting the report: median {:?}, p99 {:?}",
        c[FRAMES / 2],
        c[(FRAMES - 1) * 99 / 100]
    );
}

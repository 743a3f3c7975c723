//! The diagnostics report from a real pipeline with real ptys: every pane, consistent
//! totals, a RON round trip, and redaction of home paths and pane ids.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use tern_testkit::eventually;

use tern_core::diagnostics::{DiagnosticsReport, Environment, PaneLabel, Redactor, ReportInputs};
use tern_core::model::TermSize;
use tern_core::pipeline::{PaneEvent, PaneId, Pipeline, PipelineConfig, SpawnSpec};

fn sh(script: &str) -> SpawnSpec {
    SpawnSpec::command("sh", &["-c", script]).size(TermSize::new(80, 24))
}

/// Waits until every pane in `panes` has exited (so every byte read has been parsed).
fn wait_all_exited(p: &Pipeline, panes: &[PaneId]) {
    let mut left: HashSet<PaneId> = panes.iter().copied().collect();
    eventually("every pane exits", Duration::from_secs(60), || {
        if let Some(PaneEvent::Exited { pane, .. }) = p.wait_event(Duration::from_millis(200)) {
            left.remove(&pane);
        }
        left.is_empty()
            .then_some(())
            .ok_or_else(|| format!("panes {left:?} still run"))
    });
}

const HOME: &str = "/home/tester-xyz";

fn long_id(pane: PaneId) -> String {
    format!("session-0f3c9a7e-1b2d-4c5e-9f00-{:012}", pane.0)
}

fn label(pane: PaneId) -> PaneLabel {
    PaneLabel {
        worktree: format!("{HOME}/src/repo-{}", pane.0),
        tab: "tab 1".into(),
        pane: format!("pane {}", pane.0),
        id: Some(long_id(pane)),
    }
}

/// Three panes: one prints a known number of bytes, one asks for the cursor position
/// (a reply), one is visible and prints a little. All exit before the report.
fn finished_pipeline() -> (Pipeline, Vec<PaneId>) {
    let p = Pipeline::start(PipelineConfig::default(), Arc::new(|| {})).expect("pipeline");
    // 20,000 lines of "y\r\n" (the tty turns \n into \r\n): 60,000 bytes.
    let flood = p.spawn(&sh("yes | head -n 20000")).expect("spawn");
    let query = p
        .spawn(&sh(
            "stty raw -echo; printf '\\033[6n'; dd bs=1 count=6 >/dev/null 2>&1; stty sane",
        ))
        .expect("spawn");
    let shown = p.spawn(&sh("echo visible; sleep 0.2")).expect("spawn");
    p.set_visible(shown, true);
    let panes = vec![flood, query, shown];
    wait_all_exited(&p, &panes);
    p.breadcrumb(
        None,
        format!("config reloaded from {HOME}/.config/tern/config.ron"),
    );
    p.breadcrumb(Some(query), format!("error in session {}", long_id(query)));
    (p, panes)
}

fn collect(p: &Pipeline) -> DiagnosticsReport {
    let env = Environment::current("test");
    DiagnosticsReport::collect(
        p,
        &ReportInputs {
            labels: &label,
            environment: &env,
            frame_times: None,
        },
    )
}

#[test]
fn the_report_has_every_pane_with_consistent_totals_and_round_trips_through_ron() {
    let (p, panes) = finished_pipeline();
    let report = collect(&p);
    assert_eq!(report.panes.len(), panes.len());
    for pane in &panes {
        let row = report
            .panes
            .iter()
            .find(|r| r.id == long_id(*pane))
            .unwrap_or_else(|| panic!("no row for {pane:?}: {:#?}", report.panes));
        assert_eq!(
            row.pty.bytes_read,
            row.pty.bytes_parsed + row.pty.in_flight,
            "{row:#?}"
        );
        assert_eq!(
            row.pty.in_flight, 0,
            "every byte is parsed once the child exited"
        );
        assert!(row.pty.bytes_read > 0, "{row:#?}");
        assert_eq!(row.worktree, format!("{HOME}/src/repo-{}", pane.0));
    }
    let flood = &report.panes[0];
    assert_eq!(flood.pty.bytes_read, 60_000, "{flood:#?}");
    assert!(
        !flood.pty.visible && flood.pty.frames_built == 0,
        "{flood:#?}"
    );
    let query = &report.panes[1];
    assert_eq!(query.pty.replies_sent, 1, "{query:#?}");
    assert!(report.reply_latency_us.count >= 1);
    let shown = &report.panes[2];
    assert!(
        shown.pty.visible && shown.pty.snapshots_built >= 1,
        "{shown:#?}"
    );
    // The rare transitions, with the reveal's snapshot cost and the exits.
    let crumbs: Vec<&str> = report.breadcrumbs.iter().map(|c| c.what.as_str()).collect();
    assert!(
        crumbs
            .iter()
            .any(|c| c.starts_with("snapshot seq") && c.contains("built in")),
        "{crumbs:#?}"
    );
    assert!(
        crumbs
            .iter()
            .filter(|c| c.starts_with("child exited"))
            .count()
            >= 3,
        "{crumbs:#?}"
    );
    assert!(
        report.breadcrumbs.iter().any(|c| c.pane.is_none()),
        "the app's own crumb"
    );
    // Throughput: the flood shows up in the rates.
    let flood_id = long_id(panes[0]);
    assert!(
        report
            .throughput
            .iter()
            .flat_map(|t| &t.bytes_per_s)
            .any(|(id, rate)| *id == flood_id && *rate > 0.0),
        "{:#?}",
        report.throughput
    );
    assert!(report.model.busy_ns > 0 && report.model.rounds > 0);

    let text = report.to_ron().expect("to ron");
    let back = DiagnosticsReport::from_ron(&text).expect("from ron");
    // The pipeline's pane number is process-local and not exported, nor are the last
    // parse's age and the reply buckets (summed in `reply_latency_us`).
    let mut expected = report.clone();
    for row in &mut expected.panes {
        row.pty.pane = 0;
        row.pty.last_parse_age_ms = None;
        row.pty.reply_latency_buckets.clear();
    }
    assert_eq!(back, expected);
}

#[test]
fn a_redacted_report_has_no_home_path_and_no_full_pane_id() {
    let (p, panes) = finished_pipeline();
    let report = collect(&p).redacted(&Redactor::with_home(Some(HOME)));
    let text = report.to_ron().expect("to ron");
    assert!(!text.contains(HOME), "{text}");
    for pane in &panes {
        let full = long_id(*pane);
        assert!(!text.contains(&full), "{full} in {text}");
        // What is left still tells the panes apart.
        assert!(text.contains(&tern_core::diagnostics::short_id(&full)));
    }
    assert!(text.contains("~/src/repo-"), "{text}");
    assert!(text.contains("~/.config/tern/config.ron"), "{text}");
    assert!(DiagnosticsReport::from_ron(&text).is_ok());
}

#[test]
fn a_redacted_report_has_no_program_set_titles_unless_asked() {
    let (p, _panes) = finished_pipeline();
    let mut report = collect(&p);
    for row in &mut report.panes {
        row.tab = "2 ssh deploy@secret-host".into();
        row.label = "vim /srv/secret-plans.txt".into();
    }
    let text = report
        .redacted(&Redactor::with_home(Some(HOME)))
        .to_ron()
        .expect("to ron");
    assert!(!text.contains("secret"), "{text}");
    assert!(
        text.contains("\"tab 2\"") && text.contains("\"pane 1\""),
        "{text}"
    );
    let kept = report
        .redacted(&Redactor::with_home(Some(HOME)).keeping_titles())
        .to_ron()
        .expect("to ron");
    assert!(kept.contains("secret-host"), "{kept}");
}

/// Catches image memory missing from the report: a pane that keeps a 64x64 RGBA image
/// (16 KiB decoded) shows it in its row, within its memory, and in the process total;
/// a pane without images shows none.
#[test]
fn the_report_counts_each_panes_image_memory_and_the_total() {
    let p = Pipeline::start(PipelineConfig::default(), Arc::new(|| {})).expect("pipeline");
    // `a=t` keeps the image without showing it; the payload is 64x64 RGBA, zlib'd so
    // the script stays short (base64 of the zlib stream of 16 KiB of 0x55).
    let payload = {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&[0x55; 64 * 64 * 4]).expect("zlib");
        base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            z.finish().expect("zlib"),
        )
    };
    let image = p
        .spawn(&sh(&format!(
            "printf '\\033_Ga=t,f=32,o=z,s=64,v=64,i=3,q=2;{payload}\\033\\\\'; exec sleep 60"
        )))
        .expect("spawn");
    let plain = p.spawn(&sh("echo no images")).expect("spawn");
    wait_all_exited(&p, &[plain]);
    // The image pane lives on (its images with it): wait for its row to count them.
    let row = |report: &DiagnosticsReport, pane: PaneId| {
        report
            .panes
            .iter()
            .find(|r| r.pty.pane == pane.0)
            .expect("a row")
            .pty
            .clone()
    };
    let report = eventually("image bytes counted", Duration::from_secs(60), || {
        let report = collect(&p);
        (row(&report, image).image_bytes > 0).then_some(report)
    });
    let (with, without) = (row(&report, image), row(&report, plain));
    assert!(
        with.image_bytes >= 64 * 64 * 4,
        "the image pane holds {} image bytes",
        with.image_bytes
    );
    assert!(
        with.image_bytes <= with.heap_bytes,
        "images are part of memory"
    );
    assert_eq!(without.image_bytes, 0);
    // The total counts decoded pixels (the pane's figure also its tables).
    assert!(report.model.image_bytes_total >= 64 * 64 * 4);
}

//! Soak: 16 hidden panes flooding and 4 visible panes typing for a fixed time. Memory
//! stays flat (RSS sampled), no pane wedges (every typing pane echoes every word within
//! a bound), and every pane ends on the screen a fresh `Terminal` shows for the same
//! bytes. `soak_short` runs in CI (~15 s); `soak_long` is `#[ignore]`d:
//! `SOAK_SECS=3600 cargo test -p tern-core --test soak -- --ignored`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tern_core::model::{TermConfig, TermSize, Terminal};
use tern_core::pipeline::delivery::PaneView;
use tern_core::pipeline::{PaneEvent, PaneId, Pipeline, PipelineConfig, SpawnSpec};
use tern_testkit::{eventually, rss_bytes};

const FLOODS: usize = 16;
const TYPISTS: usize = 4;
/// How long a typed word may take to appear in its pane's view before the pane counts
/// as wedged: a bounded wait for the echo, not a latency bound (echo latency under
/// load is `tern-bench keys`'s figure).
const ECHO_BOUND: Duration = Duration::from_secs(60);

fn secs_from_env(default: u64) -> Duration {
    Duration::from_secs(
        std::env::var("SOAK_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default),
    )
}

struct Typist {
    pane: PaneId,
    view: Option<PaneView>,
    words: usize,
}

impl Typist {
    /// Types the next word and waits until the view shows it.
    fn type_word(&mut self, p: &Pipeline) {
        let word = format!("w{}x{}", self.pane.0, self.words);
        p.write(self.pane, format!("{word}\r").as_bytes());
        let pane = self.pane;
        let view = &mut self.view;
        eventually(format!("pane {pane:?} echoes {word}"), ECHO_BOUND, || {
            if let Some(d) = p.take(pane) {
                PaneView::apply_delivery(view, d);
            }
            // `cat` echoes the line (tty echo, then cat's copy): the word's own row.
            view.as_ref()
                .is_some_and(|v| v.dump().rows.iter().any(|r| r == &word))
        });
        self.words += 1;
    }
}

fn soak(duration: Duration) {
    if !Path::new("/proc/self/statm").exists() {
        return; // RSS sampling reads /proc
    }
    let dir = tempfile::tempdir().expect("dir");
    // A reset first, so the screen after any number of copies is the screen after the
    // last copy fed to a terminal that already saw one (the reference below).
    let mut fixture = b"\x1bc".to_vec();
    fixture.extend(tern_core::fixtures::Fixture::AgentTui.generate(128 * 1024, 80, 24));
    let path = dir.path().join("agent.bin");
    std::fs::write(&path, &fixture).expect("fixture");
    let stop = dir.path().join("stop");
    let term = TermConfig {
        scrollback_lines: 2000,
        ..TermConfig::default()
    };
    let config = PipelineConfig {
        window_bytes: 256 * 1024,
        term: term.clone(),
        ..PipelineConfig::default()
    };
    let p = Pipeline::start(config, Arc::new(|| {})).expect("pipeline");
    let script = format!(
        "stty -opost; while [ ! -e '{}' ]; do cat '{}'; done",
        stop.display(),
        path.display()
    );
    let size = TermSize::new(80, 24);
    let floods: Vec<PaneId> = (0..FLOODS)
        .map(|_| {
            p.spawn(&SpawnSpec::command("sh", &["-c", &script]).size(size))
                .expect("spawn flood")
        })
        .collect();
    let mut typists: Vec<Typist> = (0..TYPISTS)
        .map(|_| {
            let pane = p
                .spawn(&SpawnSpec::command("cat", &[]).size(size))
                .expect("spawn cat");
            p.set_visible(pane, true);
            Typist {
                pane,
                view: None,
                words: 0,
            }
        })
        .collect();

    let started = Instant::now();
    let warmup = duration / 4;
    let mut baseline = None;
    let mut rss_max = 0;
    let mut last_sample = Instant::now();
    let mut turn = 0;
    while started.elapsed() < duration {
        p.set_focus(Some(typists[turn % TYPISTS].pane));
        typists[turn % TYPISTS].type_word(&p);
        turn += 1;
        for e in p.poll_events() {
            if let PaneEvent::Exited { pane, exit } = e {
                panic!("pane {pane:?} exited early: {exit:?}");
            }
        }
        if last_sample.elapsed() >= Duration::from_millis(200) {
            last_sample = Instant::now();
            let rss = rss_bytes();
            if started.elapsed() >= warmup {
                baseline.get_or_insert(rss);
                rss_max = rss_max.max(rss);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    std::fs::write(&stop, b"").expect("stop file");
    let baseline = baseline.unwrap_or_else(rss_bytes);
    let growth = rss_max.saturating_sub(baseline);
    assert!(
        growth < 64 * 1024 * 1024 + baseline / 5,
        "RSS grew {} MiB after warm-up (baseline {} MiB)",
        growth >> 20,
        baseline >> 20
    );

    let mut exited = 0;
    eventually("the floods stop", Duration::from_secs(120), || {
        if let Some(PaneEvent::Exited { .. }) = p.wait_event(Duration::from_millis(100)) {
            exited += 1;
        }
        (exited == FLOODS)
            .then_some(())
            .ok_or(format!("{exited} exited"))
    });

    let mut reference = Terminal::new(size, term);
    reference.advance(&fixture);
    reference.advance(&fixture);
    let expected = reference.dump();
    let mut flooded = 0;
    for pane in floods {
        let read = p.credit(pane).expect("credit").read_total();
        flooded += read;
        assert!(
            read > 0 && read % fixture.len() as u64 == 0,
            "pane {pane:?} read {read}"
        );
        assert_eq!(
            p.dump_screen(pane).expect("dump"),
            expected,
            "pane {pane:?}"
        );
    }
    for t in &mut typists {
        assert!(t.words > 0);
        t.type_word(&p); // still alive after the floods
        // Once output stops, the view converges on the model (cat's copy of the word
        // may still be on its way).
        eventually(
            "the typist's view converges on the model",
            ECHO_BOUND,
            || {
                if let Some(d) = p.take(t.pane) {
                    PaneView::apply_delivery(&mut t.view, d);
                }
                let model = p.dump_screen(t.pane).expect("dump");
                let view = t.view.as_ref().expect("view").dump();
                (view == model)
                    .then_some(())
                    .ok_or_else(|| format!("typist view\n{view:?}\n{model:?}"))
            },
        );
    }
    eprintln!(
        "soak {:?}: {} MiB flooded, {turn} words typed, RSS baseline {} MiB, max {} MiB",
        duration,
        flooded >> 20,
        baseline >> 20,
        rss_max >> 20
    );
}

#[test]
fn soak_short() {
    soak(secs_from_env(12).min(Duration::from_secs(12)));
}

#[test]
#[ignore = "long soak: SOAK_SECS (default 600)"]
fn soak_long() {
    soak(secs_from_env(600));
}

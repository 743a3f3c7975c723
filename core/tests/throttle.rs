//! The visible pane first (`pipeline/throttle.rs`): while a person types, hidden floods
//! get a smaller credit window and fewer model-thread slices, lose nothing, still answer
//! queries, and get their share back when the typing pauses. Counts, never times: each
//! wait is bounded and fails with what it saw.

use std::sync::Arc;
use std::time::Duration;

use tern_core::model::TermSize;
use tern_core::pipeline::diag::PtyReport;
use tern_core::pipeline::throttle::THROTTLED_WINDOW_BYTES;
use tern_core::pipeline::{PaneEvent, PaneId, Pipeline, PipelineConfig, SpawnSpec};
use tern_testkit::eventually;

/// The longest any wait here may take before the test fails.
const BOUND: Duration = Duration::from_secs(60);

fn pipeline() -> Pipeline {
    let config = PipelineConfig {
        throttle_hidden: true,
        ..PipelineConfig::default()
    };
    Pipeline::start(config, Arc::new(|| {})).expect("pipeline starts")
}

fn sh(script: &str) -> SpawnSpec {
    SpawnSpec::command("sh", &["-c", script]).size(TermSize::new(80, 24))
}

fn row(p: &Pipeline, pane: PaneId) -> PtyReport {
    p.report()
        .into_iter()
        .find(|r| r.pane == pane.0)
        .expect("the pane has a row")
}

/// A visible, focused pane running `cat` (raw, no tty echo): where the person types.
fn typing_pane(p: &Pipeline) -> PaneId {
    let pane = p.spawn(&sh("stty raw -echo; exec cat")).expect("spawn cat");
    p.set_visible(pane, true);
    p.set_focus(Some(pane));
    pane
}

/// Types a key into `pane` every few milliseconds until `done` holds; panics with
/// `what` and the last `seen` after [`BOUND`].
fn type_until(
    p: &Pipeline,
    pane: PaneId,
    what: &str,
    mut done: impl FnMut() -> Option<String>,
) -> String {
    eventually(what, BOUND, || {
        p.write(pane, b"x");
        match done() {
            Some(seen) if seen.is_empty() => Ok(seen),
            Some(seen) => Err(format!("last seen: {seen}")),
            None => Err("nothing seen yet".to_owned()),
        }
    })
}

/// Waits (without typing) until `done` returns `None` (else what it saw), or fails
/// after [`BOUND`].
fn wait_until(what: &str, mut done: impl FnMut() -> Option<String>) {
    eventually(what, BOUND, || done().map_or(Ok(()), Err));
}

/// While keys come, a hidden pane that floods is throttled: its window is
/// [`THROTTLED_WINDOW_BYTES`] and some of its slices rest; the visible pane keeps its
/// whole window. When the keys stop, the hidden pane gets its whole window back, and
/// its bytes keep coming. Catches: no throttle (the hidden row never shows it; seen
/// failing with the model thread's throttle hook removed), and a throttle that is never
/// lifted (the last wait fails).
#[test]
fn a_hidden_floods_window_shrinks_while_a_person_types_and_returns_after() {
    let p = pipeline();
    let flood = p
        .spawn(&sh("exec yes 'a hidden flood, line after line'"))
        .expect("spawn flood");
    let keys = typing_pane(&p);
    // The configured window (the reveal of `keys` may have limited it already).
    let full = p.credit(flood).expect("credit").full_window_bytes();
    assert!(
        full > THROTTLED_WINDOW_BYTES,
        "the default window is larger"
    );
    wait_until("the flood starts", || {
        let r = row(&p, flood);
        (r.bytes_parsed < 1 << 20).then(|| format!("{} bytes parsed", r.bytes_parsed))
    });
    type_until(&p, keys, "the hidden flood is never throttled", || {
        let r = row(&p, flood);
        let ok = r.throttled && r.window_bytes == THROTTLED_WINDOW_BYTES && r.slices_rested > 0;
        Some(if ok {
            String::new()
        } else {
            format!(
                "throttled {} window {} rested {}",
                r.throttled, r.window_bytes, r.slices_rested
            )
        })
    });
    let visible = row(&p, keys);
    assert!(
        !visible.throttled && visible.window_bytes == full,
        "the pane typed into keeps its window: {visible:?}"
    );
    // The keys stop: the interaction ends and the flood gets its window back.
    wait_until("the throttle is never lifted", || {
        let r = row(&p, flood);
        (r.throttled || r.window_bytes != full)
            .then(|| format!("throttled {} window {}", r.throttled, r.window_bytes))
    });
    let before = row(&p, flood).bytes_parsed;
    wait_until("the flood stopped after the throttle", || {
        let r = row(&p, flood);
        (r.bytes_parsed < before + (1 << 20)).then(|| format!("{} parsed", r.bytes_parsed))
    });
    p.close(flood);
    p.close(keys);
}

/// `seq 1 200000` in a hidden pane while a person types in the visible one: the
/// flood is throttled (some slices rest) and every byte arrives, in order: the pane's
/// parsed total is the output's length with the tty's CR before each LF, and the
/// screen ends with the last numbers. Catches: a throttle that drops or skips bytes
/// while it rests.
#[test]
fn a_throttled_hidden_floods_bytes_all_arrive() {
    const LAST: u64 = 200_000;
    let p = pipeline();
    let keys = typing_pane(&p);
    // The typing starts first.
    p.write(keys, b"x");
    let flood = p.spawn(&sh(&format!("seq 1 {LAST}"))).expect("spawn seq");
    let expected: u64 = (1..=LAST).map(|n| n.to_string().len() as u64 + 2).sum();
    type_until(
        &p,
        keys,
        "the flood never rested while typed beside",
        || {
            let r = row(&p, flood);
            Some(if r.slices_rested > 0 {
                String::new()
            } else {
                format!("{} of {expected} parsed, rested 0", r.bytes_parsed)
            })
        },
    );
    eventually("seq ends", BOUND, || {
        matches!(
            p.wait_event(Duration::from_millis(200)),
            Some(PaneEvent::Exited { pane, .. }) if pane == flood
        )
    });
    let r = row(&p, flood);
    assert_eq!(
        r.bytes_parsed, expected,
        "every byte of seq's output: {r:?}"
    );
    assert_eq!(r.bytes_read, r.bytes_parsed);
    let screen = p.dump_screen(flood).expect("dump").rows.join("\n");
    assert!(
        screen.contains(&format!("{}\n{LAST}", LAST - 1)),
        "the last lines are there in order:\n{screen}"
    );
}

/// While typing throttles hidden floods, a cursor-position query from a hidden
/// pane that floods (the query behind its flood) is answered, and so is one from a
/// quiet hidden pane, whose slices never rest (it is parsed and answered at once).
/// Catches: a throttled pane whose queries wait for the interaction to end, or a quiet
/// hidden pane paced like a flood.
#[test]
fn queries_to_hidden_panes_are_answered_while_throttled() {
    let p = pipeline();
    let keys = typing_pane(&p);
    p.write(keys, b"x");
    // Each prints its answer as `GOT[row;col`; the flood first prints 2 MB, then asks.
    let ask = r#"stty raw -echo; printf '\033[6n'; IFS= read -r -d R ans; printf '\r\nGOT%s\r\n' "${ans#?}"; exec sleep 100"#;
    let flooding = p
        .spawn(
            &SpawnSpec::command(
                "bash",
                &["-c", &format!("yes flood | head -c 2000000; {ask}")],
            )
            .size(TermSize::new(80, 24)),
        )
        .expect("spawn flooding");
    let mut quiet: Option<PaneId> = None;
    type_until(&p, keys, "a query was not answered while throttled", || {
        let f = row(&p, flooding);
        if !f.throttled {
            return Some("the flooding pane is not throttled yet".into());
        }
        // The quiet pane asks once the throttle is on.
        let q = *quiet.get_or_insert_with(|| {
            p.spawn(&SpawnSpec::command("bash", &["-c", ask]).size(TermSize::new(80, 24)))
                .expect("spawn quiet")
        });
        let answered = |pane| {
            p.dump_screen(pane)
                .is_some_and(|d| d.rows.iter().any(|r| r.starts_with("GOT[")))
        };
        let (fa, qa) = (answered(flooding), answered(q));
        Some(if fa && qa {
            String::new()
        } else {
            format!(
                "flooding answered {fa} ({} parsed, rested {}), quiet answered {qa}",
                f.bytes_parsed, f.slices_rested
            )
        })
    });
    let f = row(&p, flooding);
    assert!(f.slices_rested > 0, "the flood was paced: {f:?}");
    let q = row(&p, quiet.expect("spawned"));
    assert_eq!(
        q.slices_rested, 0,
        "a quiet hidden pane is never paced: {q:?}"
    );
    assert!(q.throttled, "though its window is the small one: {q:?}");
}

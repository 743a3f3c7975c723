//! Properties of the remote side's pure parts: a remote pane's flow control
//! ([`PaneFlow`]) under any order of output, slave room and tmux pauses, and remote
//! targets (`ssh://…`, `alias:path`). Seeded: CI runs a fixed seed; `PROPTEST_CASES=N`
//! deepens a run and `PROPTEST_RNG_SEED=S` picks another seed.

use std::io;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use tern_core::tmux::{FlowConfig, FlowStep, PaneFlow, RemoteTarget};

fn config() -> Config {
    let mut c = Config::default();
    if matches!(c.rng_seed, RngSeed::Random) {
        c.rng_seed = RngSeed::Fixed(0x7e57_f10e);
    }
    c.failure_persistence = None;
    c
}

#[derive(Clone, Debug)]
enum Op {
    /// tmux sends this many bytes for the pane.
    Output(usize),
    /// The model read this much: the slave has room for it, and says so.
    Room(usize),
    /// tmux paused the pane on its own (`%pause` without tern asking).
    TmuxPause,
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (1usize..3000).prop_map(Op::Output),
        3 => (0usize..5000).prop_map(Op::Room),
        1 => Just(Op::TmuxPause),
    ]
}

/// A slave with a given room; what it took, in order.
struct Slave {
    room: usize,
    got: Vec<u8>,
}

fn write_into(slave: &mut Slave) -> impl FnMut(&[u8]) -> io::Result<usize> + '_ {
    |bytes| {
        if slave.room == 0 {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        let n = bytes.len().min(slave.room);
        slave.room -= n;
        slave.got.extend_from_slice(&bytes[..n]);
        Ok(n)
    }
}

#[derive(Default)]
struct Mirror {
    paused: bool,
    acks_due: u32,
}

impl Mirror {
    fn step(&mut self, step: Option<FlowStep>) -> Result<(), TestCaseError> {
        match step {
            Some(FlowStep::Pause) => {
                prop_assert!(!self.paused, "a second pause before a continue");
                self.paused = true;
                self.acks_due += 1;
            }
            Some(FlowStep::ContinueAndRepaint) => {
                prop_assert!(self.paused, "a continue without a pause");
                self.paused = false;
            }
            None => {}
        }
        Ok(())
    }
}

fn is_subsequence(small: &[u8], big: &[u8]) -> bool {
    let mut it = big.iter();
    small.iter().all(|b| it.any(|c| c == b))
}

proptest! {
    #![proptest_config(config())]

    /// Whatever happens: kept bytes stay under the cap; every byte is written, kept or
    /// counted as dropped, in order; a pause is asked once until continued; every
    /// pause ends in a continue with a repaint once the slave has room; and a pane
    /// that was never paused lost nothing.
    #[test]
    fn flow_keeps_order_bounds_memory_and_always_continues(
        ops in proptest::collection::vec(arb_op(), 0..200),
        high in 0usize..4000,
        max in 1usize..8000,
    ) {
        let flow_config = FlowConfig { keep_high_bytes: high, keep_max_bytes: max };
        let mut flow = PaneFlow::new(flow_config);
        let mut slave = Slave { room: 0, got: Vec::new() };
        let mut sent: Vec<u8> = Vec::new();
        let mut counter = 0u8;
        // The state the steps imply: paused (asked or made by tmux, not yet
        // continued), and `%pause` answers still to come for pauses tern asked.
        let mut mirror = Mirror::default();
        for op in ops {
            match op {
                Op::Output(n) => {
                    let bytes: Vec<u8> = (0..n)
                        .map(|_| {
                            counter = counter.wrapping_add(1);
                            counter
                        })
                        .collect();
                    sent.extend_from_slice(&bytes);
                    mirror.step(flow.output(&bytes, write_into(&mut slave)))?;
                }
                Op::Room(n) => {
                    slave.room += n;
                    mirror.step(flow.writable(write_into(&mut slave)))?;
                }
                Op::TmuxPause => {
                    let step = flow.tmux_paused();
                    if mirror.acks_due > 0 {
                        // The answer to tern's own pause.
                        mirror.acks_due -= 1;
                        prop_assert_eq!(step, None);
                    } else if mirror.paused {
                        prop_assert_eq!(step, None);
                    } else {
                        // tmux's own pause: continued at once unless bytes wait.
                        mirror.paused = true;
                        if step.is_none() {
                            prop_assert!(flow.kept_bytes() > 0 || flow.is_blocked());
                        }
                        mirror.step(step)?;
                    }
                }
            }
            prop_assert!(flow.kept_bytes() <= max, "kept {} > max {max}", flow.kept_bytes());
            prop_assert_eq!(mirror.paused, flow.is_paused());
        }
        // The model catches up: everything kept goes out, a paused pane is continued.
        slave.room = usize::MAX;
        mirror.step(flow.writable(write_into(&mut slave)))?;
        prop_assert_eq!(flow.kept_bytes(), 0);
        prop_assert!(!flow.is_paused() && !mirror.paused);
        let stats = flow.stats();
        prop_assert_eq!(slave.got.len() as u64 + stats.bytes_dropped, sent.len() as u64);
        prop_assert!(is_subsequence(&slave.got, &sent));
        if stats.pauses_asked == 0 && stats.bytes_dropped == 0 {
            prop_assert_eq!(&slave.got, &sent);
        }
        prop_assert_eq!(stats.continues, stats.pauses_asked + stats.tmux_pauses);
    }

    /// A target written back (`ssh://…`) parses to the same target.
    #[test]
    fn targets_round_trip(
        user in proptest::option::of("[a-z_][a-z0-9_.-]{0,8}"),
        host in "[a-z0-9][a-z0-9.-]{0,20}",
        port in proptest::option::of(1u16..),
        path in prop_oneof![
            Just(String::new()),
            // `ssh://host/~…` is the home (see `tmux::target`).
            "/[ -~]{0,30}".prop_filter("not /~", |p| p != "/~" && !p.starts_with("/~/")),
            "~/[ -~]{0,30}",
        ],
    ) {
        let target = RemoteTarget { user, host, port, path };
        let text = target.to_string();
        prop_assert_eq!(RemoteTarget::parse(&text), Ok(target), "{}", text);
    }

    /// Anything: no panic, and what parses is safe to hand to ssh (no option for a
    /// host, no control characters in the path).
    #[test]
    fn any_text_parses_safely_or_not_at_all(text in "\\PC{0,40}|ssh://\\PC{0,40}|[a-z@:/~\\[\\]-]{0,30}") {
        if let Ok(t) = RemoteTarget::parse(&text) {
            prop_assert!(!t.host.is_empty() && !t.host.starts_with('-'));
            prop_assert!(!t.host.chars().any(|c| c.is_whitespace() || c.is_control()));
            prop_assert!(t.user.as_deref().is_none_or(|u| !u.starts_with('-') && !u.is_empty()));
            prop_assert!(!t.path.chars().any(char::is_control));
            prop_assert_ne!(t.port, Some(0));
        }
    }
}

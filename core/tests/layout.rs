//! Split trees, spatial focus, tabs and worktree groups, without a window.

use tern_core::workspace::split_tree::{Axis, Direction, Layout, Rect};
use tern_core::workspace::{Badges, Closed, Workspace, fuzzy_rank};

const AREA: Rect = Rect {
    x: 0.0,
    y: 0.0,
    w: 1000.0,
    h: 600.0,
};

/// a | b over c   (b and c stacked on the right).
fn three() -> Layout<u32> {
    let mut l = Layout::leaf(1);
    assert!(l.split(1, Axis::Horizontal, 2));
    assert!(l.split(2, Axis::Vertical, 3));
    l
}

fn rect_of(l: &Layout<u32>, p: u32) -> Rect {
    l.rects(AREA, 0.0)
        .into_iter()
        .find(|(q, _)| *q == p)
        .map(|(_, r)| r)
        .expect("pane has a rect")
}

#[test]
fn splitting_halves_the_space_and_keeps_reading_order() {
    let l = three();
    assert_eq!(l.panes(), vec![1, 2, 3]);
    assert_eq!(rect_of(&l, 1), Rect::new(0.0, 0.0, 500.0, 600.0));
    assert_eq!(rect_of(&l, 2), Rect::new(500.0, 0.0, 500.0, 300.0));
    assert_eq!(rect_of(&l, 3), Rect::new(500.0, 300.0, 500.0, 300.0));
}

#[test]
fn gaps_leave_room_for_dividers_that_sit_between_the_panes() {
    let l = three();
    let rects = l.rects(AREA, 4.0);
    let divs = l.dividers(AREA, 4.0);
    assert_eq!(divs.len(), 2);
    let vertical = &divs[0];
    assert_eq!(vertical.axis, Axis::Horizontal);
    let a = rects[0].1;
    let b = rects[1].1;
    assert_eq!(vertical.rect.x, a.right());
    assert_eq!(vertical.rect.right(), b.x);
    // No two panes overlap, and together with the gaps they fill the area.
    let area: f32 = rects.iter().map(|(_, r)| r.w * r.h).sum();
    let gaps: f32 = divs.iter().map(|d| d.rect.w * d.rect.h).sum();
    assert!((area + gaps - AREA.w * AREA.h).abs() < 1.0);
}

#[test]
fn removing_a_pane_gives_its_space_to_the_sibling() {
    let mut l = three();
    assert_eq!(l.remove(2), Some(3));
    assert_eq!(l.panes(), vec![1, 3]);
    assert_eq!(rect_of(&l, 3), Rect::new(500.0, 0.0, 500.0, 600.0));
    assert_eq!(l.remove(1), Some(3));
    assert_eq!(l, Layout::leaf(3));
    // The last pane cannot be removed from a tree; unknown panes are not found.
    assert_eq!(l.remove(3), None);
    assert_eq!(l.remove(9), None);
}

#[test]
fn spatial_focus_moves_to_the_adjacent_pane() {
    let l = three();
    assert_eq!(l.neighbour(1, Direction::Right), Some(2)); // top of the two, ties go up
    assert_eq!(l.neighbour(3, Direction::Left), Some(1));
    assert_eq!(l.neighbour(2, Direction::Down), Some(3));
    assert_eq!(l.neighbour(3, Direction::Up), Some(2));
    assert_eq!(l.neighbour(1, Direction::Left), None);
    assert_eq!(l.neighbour(2, Direction::Right), None);
    assert_eq!(l.neighbour(1, Direction::Up), None);
}

#[test]
fn spatial_focus_prefers_the_pane_that_overlaps_most() {
    // Left column: 1 over 4 (1 is 80% tall); right: 2. From 2 going left, 1 overlaps more.
    let mut l = Layout::leaf(1);
    l.split(1, Axis::Horizontal, 2);
    l.split(1, Axis::Vertical, 4);
    assert!(l.set_ratio(&[false], 0.8));
    assert_eq!(l.neighbour(2, Direction::Left), Some(1));
    assert!(l.set_ratio(&[false], 0.2));
    assert_eq!(l.neighbour(2, Direction::Left), Some(4));
}

#[test]
fn keyboard_resize_moves_the_edge_facing_the_direction() {
    let mut l = three();
    // Pane 1's right edge moves right: the root split grows its first child.
    assert!(l.resize(1, Direction::Right, 0.1));
    assert_eq!(rect_of(&l, 1).w, 600.0);
    // Pane 2 (top right) growing down moves the inner split.
    assert!(l.resize(2, Direction::Down, 0.1));
    assert_eq!(rect_of(&l, 2).h, 360.0);
    // Pane 2 growing left moves the root split back.
    assert!(l.resize(2, Direction::Left, 0.1));
    assert_eq!(rect_of(&l, 1).w, 500.0);
    // Nothing to move: pane 1 has no edge on its left.
    assert!(!l.resize(1, Direction::Left, 0.1));
    // Ratios are clamped so no pane disappears.
    for _ in 0..50 {
        l.resize(1, Direction::Right, 0.1);
    }
    assert!(rect_of(&l, 2).w >= 0.04 * AREA.w);
}

#[test]
fn equalize_gives_each_column_the_same_width() {
    // 1 | 2 | 3 built by splitting right twice from the left: 1 | (2 | 3) would be 50/25/25.
    let mut l = Layout::leaf(1);
    l.split(1, Axis::Horizontal, 2);
    l.split(2, Axis::Horizontal, 3);
    assert_eq!(rect_of(&l, 1).w, 500.0);
    l.equalize();
    for p in [1, 2, 3] {
        assert!((rect_of(&l, p).w - 333.0).abs() <= 1.0, "pane {p}");
    }
}

#[test]
fn dragging_a_divider_sets_its_split_ratio() {
    let mut l = three();
    let div = l.dividers(AREA, 0.0).remove(1); // the inner (b over c) split
    assert_eq!(div.axis, Axis::Vertical);
    assert!(l.set_ratio(&div.path, 0.25));
    assert_eq!(rect_of(&l, 2).h, 150.0);
    assert!(!l.set_ratio(&[false], 0.3), "a leaf has no ratio");
}

#[test]
fn layouts_map_to_other_pane_types_keeping_their_shape() {
    let l = three();
    let named = l.map(&mut |p| u64::from(*p) * 10);
    assert_eq!(named.panes(), vec![10, 20, 30]);
    let back = named.map(&mut |p| (*p / 10) as u32);
    assert_eq!(back, l);
}

fn workspace() -> Workspace<u32> {
    let mut ws = Workspace::default();
    let a = ws.add_group("main".into(), "/repo".into(), Some("/repo".into()));
    let b = ws.add_group(
        "feature".into(),
        "/repo-feature".into(),
        Some("/repo".into()),
    );
    ws.add_tab(a, 1);
    ws.add_tab(a, 2);
    ws.add_tab(b, 3);
    ws
}

#[test]
fn only_the_active_tab_is_visible_and_every_other_pane_is_parked() {
    let mut ws = workspace();
    assert_eq!(ws.visible_panes(), vec![3]);
    assert_eq!(ws.focused_pane(), Some(3));
    assert!(ws.focus_pane(1));
    assert_eq!(ws.visible_panes(), vec![1]);
    assert!(ws.split_focused(Axis::Horizontal, 4));
    assert_eq!(ws.visible_panes(), vec![1, 4]);
    assert_eq!(ws.focused_pane(), Some(4));
    ws.toggle_zoom();
    assert_eq!(ws.visible_panes(), vec![4], "a zoomed tab shows one pane");
    ws.toggle_zoom();
    assert_eq!(ws.all_panes(), vec![1, 4, 2, 3]);
}

#[test]
fn tabs_cycle_select_and_reorder_within_their_worktree() {
    let mut ws = workspace();
    ws.focus_pane(1);
    ws.cycle_tab(1);
    assert_eq!(ws.focused_pane(), Some(2));
    ws.cycle_tab(1);
    assert_eq!(ws.focused_pane(), Some(1), "wraps around");
    ws.cycle_tab(-1);
    assert_eq!(ws.focused_pane(), Some(2));
    assert!(ws.select_tab(0));
    assert_eq!(ws.focused_pane(), Some(1));
    assert!(!ws.select_tab(5));
    assert!(ws.move_tab(0, 0, 1));
    assert_eq!(ws.groups[0].tabs[1].layout.panes(), vec![1]);
    assert_eq!(ws.focused_pane(), Some(1), "the moved tab stays active");
}

#[test]
fn worktrees_cycle_skipping_empty_ones() {
    let mut ws = workspace();
    ws.add_group("empty".into(), "/repo-empty".into(), None);
    assert_eq!(ws.active, 1);
    assert!(ws.cycle_group(1));
    assert_eq!(ws.active, 0, "skips the empty group, wraps");
    assert!(ws.cycle_group(-1));
    assert_eq!(ws.active, 1);
    // Adding a group twice returns the first.
    assert_eq!(ws.add_group("x".into(), "/repo".into(), None), 0);
}

#[test]
fn closing_panes_then_tabs_moves_focus_sensibly() {
    let mut ws = workspace();
    ws.focus_pane(1);
    ws.split_focused(Axis::Vertical, 5);
    assert_eq!(ws.close_pane(5), Closed::Pane { focus: 1 });
    assert_eq!(ws.visible_panes(), vec![1]);
    assert_eq!(ws.close_pane(1), Closed::Tab);
    assert_eq!(ws.focused_pane(), Some(2));
    assert_eq!(ws.close_pane(42), Closed::NotFound);
    assert_eq!(ws.close_pane(2), Closed::Tab);
    assert!(ws.groups[0].tabs.is_empty());
    assert!(ws.remove_group(0));
    assert_eq!(ws.groups.len(), 1);
    assert_eq!(ws.focused_pane(), Some(3));
    assert!(!ws.remove_group(0), "a group with tabs stays");
}

#[test]
fn focus_moves_between_panes_with_directions() {
    let mut ws = workspace();
    ws.split_focused(Axis::Horizontal, 6); // 3 | 6
    ws.split_focused(Axis::Vertical, 7); // 3 | (6 over 7)
    assert_eq!(ws.focused_pane(), Some(7));
    assert!(ws.focus_direction(Direction::Up));
    assert_eq!(ws.focused_pane(), Some(6));
    assert!(ws.focus_direction(Direction::Left));
    assert_eq!(ws.focused_pane(), Some(3));
    assert!(!ws.focus_direction(Direction::Left));
    assert!(ws.focus_direction(Direction::Right));
    assert_eq!(ws.focused_pane(), Some(6));
}

#[test]
fn badges_roll_up_from_panes_to_tabs_to_worktrees() {
    let ws = workspace();
    let badges = |p: u32| match p {
        1 => Badges {
            bell: true,
            ..Badges::default()
        },
        2 => Badges {
            finished: Some(false),
            ..Badges::default()
        },
        3 => Badges {
            finished: Some(true),
            unseen_output: true,
            ..Badges::default()
        },
        _ => Badges::default(),
    };
    let main = ws.group_badges(0, badges);
    assert!(main.bell);
    assert_eq!(main.finished, Some(false));
    assert!(!main.unseen_output);
    let feature = ws.group_badges(1, badges);
    assert_eq!(feature.finished, Some(true));
    assert!(feature.unseen_output && !feature.bell);
    assert!(ws.group_badges(7, badges).is_empty());
    // A failure outranks a success whichever comes first.
    let ok = Badges {
        finished: Some(true),
        ..Badges::default()
    };
    let failed = Badges {
        finished: Some(false),
        ..Badges::default()
    };
    assert_eq!(ok.merge(failed).finished, Some(false));
    assert_eq!(failed.merge(ok).finished, Some(false));
}

#[test]
fn fuzzy_ranking_finds_panes_by_any_part_of_their_description() {
    let items: Vec<String> = [
        "main · zsh · ~/src/tern",
        "feature-login · cargo test · ~/src/tern-login",
        "feature-login · claude · ~/src/tern-login",
        "docs · vim README.md · ~/src/tern-docs",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(fuzzy_rank("", &items), vec![0, 1, 2, 3]);
    assert_eq!(fuzzy_rank("claude", &items), vec![2]);
    let login = fuzzy_rank("login test", &items);
    assert_eq!(login[0], 1, "the exact word ranks first: {login:?}");
    assert!(!login.contains(&0), "every word must match");
    assert_eq!(fuzzy_rank("vimrdme", &items), vec![3], "letters in order");
    assert!(fuzzy_rank("zzzz", &items).is_empty());
}

mod session_round_trip {
    use std::collections::HashMap;
    use std::path::PathBuf;

    use tern_core::session::{SavedLayout, SavedPane, SessionState, SessionStore, SplitDir};
    use tern_core::workspace::Workspace;
    use tern_core::workspace::split_tree::{Axis, Layout};

    /// Pane n lives in /w/n.
    fn cwd(p: u32) -> PathBuf {
        PathBuf::from(format!("/w/{p}"))
    }

    fn saved(p: u32) -> SavedPane {
        SavedPane {
            cwd: cwd(p),
            last_screen: None,
            command: None,
            agent: None,
            keeper: None,
        }
    }

    #[test]
    fn a_workspace_saves_and_restores_groups_tabs_splits_titles_and_focus() {
        let mut ws: Workspace<u32> = Workspace::default();
        let main = ws.add_group("main".into(), "/repo".into(), Some("/repo".into()));
        let scratch = ws.add_group("scratch".into(), "/tmp/x".into(), None);
        ws.add_tab(main, 1);
        ws.split_focused(Axis::Horizontal, 2);
        ws.split_focused(Axis::Vertical, 3);
        ws.resize_focused(tern_core::workspace::split_tree::Direction::Up, 0.1);
        ws.focus_pane(2);
        ws.add_tab(main, 4);
        ws.groups[main].tabs[1].custom_title = Some("logs".into());
        ws.add_tab(scratch, 5);
        ws.focus_pane(2);

        let state = ws.to_session(saved);
        // Through the file, as a restart would.
        let dir = tempfile::tempdir().expect("tempdir");
        let store = SessionStore::new(dir.path().join("session.ron"));
        store.save(&state).expect("save");
        let loaded = match store.load() {
            tern_core::session::LoadOutcome::Restored(s) => s,
            other => panic!("{other:?}"),
        };
        assert_eq!(loaded, state);

        // Restarted panes get new ids: 100 + old id, found by folder.
        let mut started = Vec::new();
        let back: Workspace<u32> = Workspace::from_session(&loaded, |p: &SavedPane| {
            let old: u32 = p.cwd.file_name()?.to_str()?.parse().ok()?;
            started.push(p.cwd.clone());
            Some(100 + old)
        });
        assert_eq!(started.len(), 5, "every pane restarted in its folder");
        let renumber: HashMap<u32, u32> = [1, 2, 3, 4, 5].map(|p| (p, 100 + p)).into();
        let expected_layout = ws.groups[main].tabs[0].layout.map(&mut |p| renumber[p]);
        assert_eq!(back.groups.len(), 2);
        assert_eq!(back.groups[main].repo, Some(PathBuf::from("/repo")));
        assert_eq!(
            back.groups[scratch].repo, None,
            "a group without a repository"
        );
        let restored = &back.groups[main].tabs[0].layout;
        assert_eq!(restored.panes(), expected_layout.panes());
        let close = |a: &Layout<u32>, b: &Layout<u32>| {
            let area = tern_core::workspace::split_tree::Rect::new(0.0, 0.0, 1000.0, 1000.0);
            a.rects(area, 0.0)
                .iter()
                .zip(b.rects(area, 0.0))
                .all(|((p, r), (q, s))| {
                    *p == q && (r.w - s.w).abs() < 1.0 && (r.h - s.h).abs() < 1.0
                })
        };
        assert!(close(restored, &expected_layout), "the same split geometry");
        assert_eq!(
            back.groups[main].tabs[1].custom_title.as_deref(),
            Some("logs")
        );
        assert_eq!(back.focused_pane(), Some(102), "the focused pane and tab");
        assert_eq!(back.active, main);
    }

    #[test]
    fn panes_that_cannot_restart_are_left_out_and_wide_splits_keep_their_shares() {
        let state = SessionState {
            worktrees: vec![tern_core::session::SavedWorktree {
                repo: PathBuf::new(),
                path: "/w".into(),
                name: "w".into(),
                tabs: vec![
                    tern_core::session::SavedTab {
                        title: None,
                        custom_title: false,
                        layout: SavedLayout::Split {
                            dir: SplitDir::Horizontal,
                            ratios: vec![0.5, 0.25, 0.25],
                            children: vec![
                                SavedLayout::leaf(cwd(1)),
                                SavedLayout::leaf(cwd(2)),
                                SavedLayout::leaf(cwd(3)),
                            ],
                        },
                        focused_pane: 2,
                    },
                    tern_core::session::SavedTab {
                        title: None,
                        custom_title: false,
                        layout: SavedLayout::leaf("/gone"),
                        focused_pane: 0,
                    },
                ],
                active_tab: 0,
            }],
            active_worktree: Some(0),
            ..SessionState::default()
        };
        let ws: Workspace<u32> =
            Workspace::from_session(&state, |p| p.cwd.file_name()?.to_str()?.parse().ok());
        assert_eq!(
            ws.groups[0].tabs.len(),
            1,
            "the tab whose pane failed is gone"
        );
        let layout = &ws.groups[0].tabs[0].layout;
        let area = tern_core::workspace::split_tree::Rect::new(0.0, 0.0, 1000.0, 100.0);
        let widths: Vec<f32> = layout.rects(area, 0.0).iter().map(|(_, r)| r.w).collect();
        assert_eq!(widths, vec![500.0, 250.0, 250.0]);
        assert_eq!(ws.focused_pane(), Some(3));
        // One pane of the three fails: the other two share the space.
        let ws: Workspace<u32> = Workspace::from_session(&state, |p| {
            let n: u32 = p.cwd.file_name()?.to_str()?.parse().ok()?;
            (n != 2).then_some(n)
        });
        assert_eq!(ws.groups[0].tabs[0].layout.panes(), vec![1, 3]);
    }
}

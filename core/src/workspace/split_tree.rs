//! A tab's split panes as a binary tree, with the geometry the window needs: each
//! pane's rectangle, the dividers to drag, and the neighbour in a direction.
//!
//! ```text
//!   Split(Right, 0.5)            +-----+-----+
//!    ├─ Leaf(a)                  |     |  b  |
//!    └─ Split(Down, 0.5)    =>   |  a  +-----+
//!        ├─ Leaf(b)              |     |  c  |
//!        └─ Leaf(c)              +-----+-----+
//! ```
//!
//! Nodes are addressed by a [`NodePath`] (left/right choices from the root), which is
//! what a divider hands back when dragged.

use serde::{Deserialize, Serialize};

pub use crate::ipc::SplitDirection;

impl From<SplitDirection> for Axis {
    fn from(d: SplitDirection) -> Axis {
        match d {
            SplitDirection::Right => Axis::Horizontal,
            SplitDirection::Down => Axis::Vertical,
        }
    }
}

impl From<Axis> for SplitDirection {
    fn from(a: Axis) -> SplitDirection {
        match a {
            Axis::Horizontal => SplitDirection::Right,
            Axis::Vertical => SplitDirection::Down,
        }
    }
}

/// How a split arranges its two children.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Axis {
    /// Side by side (a vertical divider): "split right".
    Horizontal,
    /// One above the other (a horizontal divider): "split down".
    Vertical,
}

/// A direction for spatial focus moves and keyboard resizing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Direction {
    Left,
    Right,
    Up,
    Down,
}

impl Direction {
    pub fn axis(self) -> Axis {
        match self {
            Direction::Left | Direction::Right => Axis::Horizontal,
            Direction::Up | Direction::Down => Axis::Vertical,
        }
    }
}

/// A rectangle in window points (no GUI types in core).
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

impl Rect {
    pub fn new(x: f32, y: f32, w: f32, h: f32) -> Rect {
        Rect { x, y, w, h }
    }
    pub fn right(&self) -> f32 {
        self.x + self.w
    }
    pub fn bottom(&self) -> f32 {
        self.y + self.h
    }
    fn split(&self, axis: Axis, ratio: f32, gap: f32) -> (Rect, Rect) {
        match axis {
            Axis::Horizontal => {
                let first = ((self.w - gap) * ratio).round().max(0.0);
                (
                    Rect::new(self.x, self.y, first, self.h),
                    Rect::new(
                        self.x + first + gap,
                        self.y,
                        (self.w - first - gap).max(0.0),
                        self.h,
                    ),
                )
            }
            Axis::Vertical => {
                let first = ((self.h - gap) * ratio).round().max(0.0);
                (
                    Rect::new(self.x, self.y, self.w, first),
                    Rect::new(
                        self.x,
                        self.y + first + gap,
                        self.w,
                        (self.h - first - gap).max(0.0),
                    ),
                )
            }
        }
    }
}

/// The path from the root to a node: `false` = first child, `true` = second.
pub type NodePath = Vec<bool>;

/// Called for every node of a walk: the node, its rectangle, its path.
type Visit<'a, P> = dyn FnMut(&Layout<P>, Rect, &[bool]) + 'a;

/// The smallest share a split gives either side.
pub const MIN_RATIO: f32 = 0.05;

/// A split tree of panes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Layout<P> {
    Leaf(P),
    Split {
        axis: Axis,
        /// The first child's share of the space, in `MIN_RATIO..=1 - MIN_RATIO`.
        ratio: f32,
        first: Box<Layout<P>>,
        second: Box<Layout<P>>,
    },
}

/// A divider between the two children of the split at `path`.
#[derive(Clone, Debug, PartialEq)]
pub struct Divider {
    pub path: NodePath,
    pub axis: Axis,
    /// The divider's own rectangle (the gap between the children).
    pub rect: Rect,
    /// The split's whole rectangle, to turn a pointer position into a ratio.
    pub parent: Rect,
}

impl<P: Copy + PartialEq> Layout<P> {
    pub fn leaf(pane: P) -> Layout<P> {
        Layout::Leaf(pane)
    }

    /// The panes in reading order (first before second, depth first).
    pub fn panes(&self) -> Vec<P> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect(&self, out: &mut Vec<P>) {
        match self {
            Layout::Leaf(p) => out.push(*p),
            Layout::Split { first, second, .. } => {
                first.collect(out);
                second.collect(out);
            }
        }
    }

    pub fn contains(&self, pane: P) -> bool {
        self.path_of(pane).is_some()
    }

    pub fn len(&self) -> usize {
        match self {
            Layout::Leaf(_) => 1,
            Layout::Split { first, second, .. } => first.len() + second.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// The path to the leaf holding `pane`.
    pub fn path_of(&self, pane: P) -> Option<NodePath> {
        match self {
            Layout::Leaf(p) => (*p == pane).then(Vec::new),
            Layout::Split { first, second, .. } => {
                if let Some(mut p) = first.path_of(pane) {
                    p.insert(0, false);
                    Some(p)
                } else if let Some(mut p) = second.path_of(pane) {
                    p.insert(0, true);
                    Some(p)
                } else {
                    None
                }
            }
        }
    }

    fn node_mut(&mut self, path: &[bool]) -> Option<&mut Layout<P>> {
        let Some((&step, rest)) = path.split_first() else {
            return Some(self);
        };
        match self {
            Layout::Leaf(_) => None,
            Layout::Split { first, second, .. } => if step { second } else { first }.node_mut(rest),
        }
    }

    /// Splits `pane`'s space in two along `axis`, `new` taking the second half.
    /// Returns false when `pane` is not in the tree.
    pub fn split(&mut self, pane: P, axis: Axis, new: P) -> bool {
        let Some(path) = self.path_of(pane) else {
            return false;
        };
        let Some(node) = self.node_mut(&path) else {
            return false;
        };
        *node = Layout::Split {
            axis,
            ratio: 0.5,
            first: Box::new(Layout::Leaf(pane)),
            second: Box::new(Layout::Leaf(new)),
        };
        true
    }

    /// Removes `pane`; its sibling takes the parent's place. Returns the pane that
    /// should get focus next (the nearest leaf of the sibling), or `None` when `pane`
    /// was not found or is the only pane (a tab always keeps one pane).
    pub fn remove(&mut self, pane: P) -> Option<P> {
        let path = self.path_of(pane)?;
        let (&last, parent_path) = path.split_last()?;
        let parent = self.node_mut(parent_path)?;
        let Layout::Split { first, second, .. } = parent else {
            return None;
        };
        let sibling = if last { first } else { second };
        let sibling = std::mem::replace(sibling.as_mut(), Layout::Leaf(pane));
        let next = if last {
            sibling.last_leaf()
        } else {
            sibling.first_leaf()
        };
        *parent = sibling;
        Some(next)
    }

    fn first_leaf(&self) -> P {
        match self {
            Layout::Leaf(p) => *p,
            Layout::Split { first, .. } => first.first_leaf(),
        }
    }

    fn last_leaf(&self) -> P {
        match self {
            Layout::Leaf(p) => *p,
            Layout::Split { second, .. } => second.last_leaf(),
        }
    }

    /// Every pane's rectangle inside `area`, with `gap` points between siblings.
    pub fn rects(&self, area: Rect, gap: f32) -> Vec<(P, Rect)> {
        let mut out = Vec::new();
        self.walk(area, gap, &mut Vec::new(), &mut |node, rect, _| {
            if let Layout::Leaf(p) = node {
                out.push((*p, rect));
            }
        });
        out
    }

    /// Every divider inside `area`.
    pub fn dividers(&self, area: Rect, gap: f32) -> Vec<Divider> {
        let mut out = Vec::new();
        self.walk(area, gap, &mut Vec::new(), &mut |node, rect, path| {
            if let Layout::Split { axis, ratio, .. } = node {
                let (a, _) = rect.split(*axis, *ratio, gap);
                let div = match axis {
                    Axis::Horizontal => Rect::new(a.right(), rect.y, gap, rect.h),
                    Axis::Vertical => Rect::new(rect.x, a.bottom(), rect.w, gap),
                };
                out.push(Divider {
                    path: path.to_vec(),
                    axis: *axis,
                    rect: div,
                    parent: rect,
                });
            }
        });
        out
    }

    fn walk(&self, rect: Rect, gap: f32, path: &mut Vec<bool>, f: &mut Visit<'_, P>) {
        f(self, rect, path);
        if let Layout::Split {
            axis,
            ratio,
            first,
            second,
        } = self
        {
            let (a, b) = rect.split(*axis, *ratio, gap);
            path.push(false);
            first.walk(a, gap, path, f);
            path.pop();
            path.push(true);
            second.walk(b, gap, path, f);
            path.pop();
        }
    }

    /// Sets the ratio of the split at `path` (clamped). Returns false if there is none.
    pub fn set_ratio(&mut self, path: &[bool], new_ratio: f32) -> bool {
        match self.node_mut(path) {
            Some(Layout::Split { ratio, .. }) => {
                *ratio = new_ratio.clamp(MIN_RATIO, 1.0 - MIN_RATIO);
                true
            }
            _ => false,
        }
    }

    /// Moves the edge of `pane` that faces `toward` by `delta` of the enclosing split
    /// (e.g. 0.05 = 5% of it): the nearest ancestor split along that axis where `pane`
    /// has a neighbour on that side. Returns false when there is no such edge.
    pub fn resize(&mut self, pane: P, toward: Direction, delta: f32) -> bool {
        let Some(path) = self.path_of(pane) else {
            return false;
        };
        // Walk up from the leaf: the first split on the axis where the pane is on the
        // side facing away from `toward` has the edge we move.
        for depth in (0..path.len()).rev() {
            let in_second = path[depth];
            let Some(Layout::Split { axis, ratio, .. }) = self.node_mut(&path[..depth]) else {
                continue;
            };
            if *axis != toward.axis() {
                continue;
            }
            let grows_first = matches!(toward, Direction::Right | Direction::Down);
            // A pane in the first child has its movable edge on the right/bottom; in the
            // second child, on the left/top.
            if in_second == grows_first {
                continue;
            }
            let d = if grows_first { delta } else { -delta };
            *ratio = (*ratio + d).clamp(MIN_RATIO, 1.0 - MIN_RATIO);
            return true;
        }
        false
    }

    /// Gives every pane the same share along each axis: a split's ratio becomes the
    /// first child's share of the panes that line up along the split's axis.
    pub fn equalize(&mut self) {
        if let Layout::Split {
            axis,
            ratio,
            first,
            second,
        } = self
        {
            first.equalize();
            second.equalize();
            let a = first.span(*axis) as f32;
            let b = second.span(*axis) as f32;
            *ratio = a / (a + b);
        }
    }

    /// How many panes this node lines up along `axis`.
    fn span(&self, axis: Axis) -> usize {
        match self {
            Layout::Leaf(_) => 1,
            Layout::Split {
                axis: a,
                first,
                second,
                ..
            } => {
                if *a == axis {
                    first.span(axis) + second.span(axis)
                } else {
                    first.span(axis).max(second.span(axis))
                }
            }
        }
    }

    /// The pane next to `pane` in direction `dir`: among panes whose rectangle lies
    /// beyond `pane`'s edge on that side and overlaps it across the axis, the closest,
    /// then the one with the largest overlap, then the one nearest the top/left.
    pub fn neighbour(&self, pane: P, dir: Direction) -> Option<P> {
        // Geometry in a unit square is enough to decide adjacency.
        let rects = self.rects(Rect::new(0.0, 0.0, 10_000.0, 10_000.0), 0.0);
        let from = rects.iter().find(|(p, _)| *p == pane)?.1;
        let overlap = |a0: f32, a1: f32, b0: f32, b1: f32| (a1.min(b1) - a0.max(b0)).max(0.0);
        let mut best: Option<(f32, f32, f32, P)> = None;
        for (p, r) in &rects {
            if *p == pane {
                continue;
            }
            let (distance, shared, cross) = match dir {
                Direction::Right if r.x >= from.right() - 0.5 => (
                    r.x - from.right(),
                    overlap(from.y, from.bottom(), r.y, r.bottom()),
                    r.y,
                ),
                Direction::Left if r.right() <= from.x + 0.5 => (
                    from.x - r.right(),
                    overlap(from.y, from.bottom(), r.y, r.bottom()),
                    r.y,
                ),
                Direction::Down if r.y >= from.bottom() - 0.5 => (
                    r.y - from.bottom(),
                    overlap(from.x, from.right(), r.x, r.right()),
                    r.x,
                ),
                Direction::Up if r.bottom() <= from.y + 0.5 => (
                    from.y - r.bottom(),
                    overlap(from.x, from.right(), r.x, r.right()),
                    r.x,
                ),
                _ => continue,
            };
            if shared <= 0.0 {
                continue;
            }
            let better = match best {
                None => true,
                Some((d, s, c, _)) => {
                    distance < d - 0.5
                        || ((distance - d).abs() <= 0.5
                            && (shared > s + 0.5 || ((shared - s).abs() <= 0.5 && cross < c)))
                }
            };
            if better {
                best = Some((distance, shared, cross, *p));
            }
        }
        best.map(|(_, _, _, p)| p)
    }
}

impl<P> Layout<P> {
    /// The same tree with every pane mapped (for saving and restoring).
    pub fn map<Q>(&self, f: &mut impl FnMut(&P) -> Q) -> Layout<Q> {
        match self {
            Layout::Leaf(p) => Layout::Leaf(f(p)),
            Layout::Split {
                axis,
                ratio,
                first,
                second,
            } => Layout::Split {
                axis: *axis,
                ratio: *ratio,
                first: Box::new(first.map(f)),
                second: Box::new(second.map(f)),
            },
        }
    }
}

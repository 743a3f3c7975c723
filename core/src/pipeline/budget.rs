//! The scrollback budget for all panes together ([`PipelineConfig::total_scrollback_bytes`]
//! on top of each pane's own caps in `TermConfig`).
//!
//! When the panes' scrollback together holds more than the budget, the largest
//! histories give up their oldest lines first: every pane is cut to a common "water
//! level", the largest size at which the total fits, so small panes keep everything.
//!
//! ```text
//!   bytes ▲        ┌─┐
//!         │ ┌─┐    │ │           cut above the level
//!   level ┼─┼─┼────┼─┼──────────
//!         │ │ │┌─┐ │ │ ┌─┐
//!         └─┴─┴┴─┴─┴─┴─┴─┴──▶ panes
//! ```
//!
//! [`PipelineConfig::total_scrollback_bytes`]: super::PipelineConfig::total_scrollback_bytes

use crate::model::Terminal;

/// The largest per-pane size at which `sizes` fit in `budget` when every pane above it
/// is cut to it; `None` when they already fit.
pub fn water_level(sizes: &[usize], budget: usize) -> Option<usize> {
    let total: usize = sizes.iter().sum();
    if total <= budget {
        return None;
    }
    let mut sorted = sizes.to_vec();
    sorted.sort_unstable();
    // With the k smallest panes kept whole, the rest share what is left equally.
    let mut kept = 0usize;
    for (k, &size) in sorted.iter().enumerate() {
        let rest = sorted.len() - k;
        let level = budget.saturating_sub(kept) / rest;
        if level < size {
            return Some(level);
        }
        kept += size;
    }
    Some(budget / sorted.len().max(1))
}

/// Trims the terminals' scrollback to the water level if they hold more than `budget`
/// bytes together. Returns the bytes freed.
pub fn enforce<'a>(terms: impl IntoIterator<Item = &'a mut Terminal>, budget: usize) -> usize {
    let mut terms: Vec<&mut Terminal> = terms.into_iter().collect();
    let sizes: Vec<usize> = terms.iter().map(|t| t.scrollback().bytes()).collect();
    if water_level(&sizes, budget).is_none() {
        return 0;
    }
    // Over: count the lines whose encoding waited too (bounded, so not counted until
    // then), and cut to the level of the whole.
    for t in terms.iter_mut() {
        t.settle_scrollback(usize::MAX);
    }
    let sizes: Vec<usize> = terms.iter().map(|t| t.scrollback().bytes()).collect();
    let Some(level) = water_level(&sizes, budget) else {
        return 0;
    };
    terms
        .iter_mut()
        .map(|t| t.trim_scrollback_bytes(level))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_level_while_under_budget() {
        assert_eq!(water_level(&[10, 20, 30], 60), None);
        assert_eq!(water_level(&[], 0), None);
    }

    #[test]
    fn the_largest_panes_are_cut_first() {
        // 10 and 20 stay; 100 and 70 share the remaining 70.
        assert_eq!(water_level(&[100, 10, 70, 20], 100), Some(35));
        // All equal: everyone gives up the same.
        assert_eq!(water_level(&[50, 50, 50, 50], 100), Some(25));
        // One giant pane among small ones takes the whole cut.
        assert_eq!(water_level(&[1000, 5, 5], 110), Some(100));
        assert_eq!(water_level(&[7], 0), Some(0));
    }

    #[test]
    fn the_level_always_fits() {
        let sizes = [913, 4, 77, 512, 0, 300, 300, 1];
        for budget in 0..2200 {
            if let Some(level) = water_level(&sizes, budget) {
                let total: usize = sizes.iter().map(|&s| s.min(level)).sum();
                assert!(
                    total <= budget,
                    "budget {budget} level {level} total {total}"
                );
                let one_more: usize = sizes.iter().map(|&s| s.min(level + 1)).sum();
                assert!(
                    one_more > budget || level >= 913,
                    "budget {budget}: level too low"
                );
            }
        }
    }
}

//! Starting a search everywhere: the open panes' part (the model thread copies, the
//! matcher matches: `search_match.rs`) and the closed panes' part (`closed.rs`), one
//! [`PanesSearch`] for the asker.

use std::sync::Arc;
use std::sync::mpsc;

use super::search_all::{MAX_CONTEXT_LINES, MAX_LIMIT, PanesQuery, PanesSearch, PanesSearchState};
use super::{ModelMsg, PaneId, Pipeline};
use crate::model::search::QueryError;

impl Pipeline {
    /// Starts a search of `panes` (in that order) on the model thread and returns at
    /// once; a query that does not compile is refused here, with its position.
    pub fn start_search_panes(
        &self,
        panes: &[PaneId],
        query: &PanesQuery,
    ) -> Result<PanesSearch, QueryError> {
        self.start_search_everywhere(panes, &[], query)
    }

    /// [`Pipeline::start_search_panes`] of the open `panes`, and of the history kept of
    /// `closed` panes (closed during this session, [`Pipeline::closed_panes`]), read
    /// on a thread of its own at the lowest priority (`closed.rs`); their answers say
    /// `closed`. A closed pane whose history is no longer kept is left out.
    pub fn start_search_everywhere(
        &self,
        panes: &[PaneId],
        closed: &[PaneId],
        query: &PanesQuery,
    ) -> Result<PanesSearch, QueryError> {
        let re = query.query.compile_checked()?;
        let limit = query.limit.clamp(1, MAX_LIMIT);
        let (tx, rx) = mpsc::channel();
        let closed = self.closed_to_search(closed);
        let (chunks, chunks_rx) = mpsc::channel();
        let state = Arc::new(PanesSearchState::new(1 + usize::from(!closed.is_empty())));
        let context_lines = query.context_lines.min(MAX_CONTEXT_LINES);
        let asked = panes.len() + closed.len();
        if !closed.is_empty() {
            let part = super::closed::ClosedSearch {
                panes: closed,
                re: re.clone(),
                limit,
                context_lines,
                reply: tx.clone(),
                state: state.clone(),
            };
            if let Err(e) = self.search_closed(part) {
                self.crumbs.push(
                    super::APP_CRUMB,
                    format!("search: cannot start the closed panes' search ({e})"),
                );
                state.part_done();
            }
        }
        // A model thread that is gone drops `tx`: `wait_all` then returns at once.
        let model_tx = self.model_tx.clone();
        let matcher = super::search_match::Matcher {
            rx: chunks_rx,
            re,
            limit,
            context_lines,
            reply: tx,
            state: state.clone(),
            waker: self.waker.clone(),
            wake_model: Box::new(move || {
                let _ = model_tx.send(ModelMsg::SearchCredit);
            }),
            interaction: self.interaction.clone(),
        };
        match super::search_match::start(matcher) {
            // A model thread that is gone drops `chunks`: the matcher ends at once.
            Ok(()) => {
                let _ = self.model_tx.send(ModelMsg::SearchPanes {
                    job: Box::new(super::search_match::PanesJobSpec {
                        panes: panes.to_vec(),
                        context_lines,
                        chunks,
                        state: state.clone(),
                    }),
                });
            }
            Err(e) => {
                self.crumbs.push(
                    super::APP_CRUMB,
                    format!("search: cannot start the matcher ({e})"),
                );
                state.part_done();
            }
        }
        Ok(PanesSearch::new(rx, state, asked, limit))
    }
}

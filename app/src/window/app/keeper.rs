//! The window's side of programs outliving it: the pipeline started with the panes'
//! history kept and a keeper holding every pane (when the window owns the session),
//! and at exit the programs kept running (the window closed with "Keep running", or
//! `session.on_close: KeepRunning`) or ended.

use std::sync::Arc;

use tern_core::model::TermSize;
use tern_core::pipeline::{Pipeline, PipelineConfig, Reattach, Waker};

use super::{Launch, TernApp};
use crate::window::settings::Settings;

pub(super) fn start_pipeline(
    launch: &Launch,
    settings: &Settings,
    waker: Waker,
) -> Result<Arc<Pipeline>, String> {
    let config = PipelineConfig {
        default_size: launch.spec.size.unwrap_or(TermSize::new(80, 24)),
        ..settings.config.pipeline_config()
    };
    Pipeline::start(config, waker)
        .map(Arc::new)
        .map_err(|e| format!("cannot start the pipeline: {e}"))
}

/// With a session: the history kept beside its file and the keeper attached (or started on the first
/// pane); the panes it held for the last tern, for the restore.
pub(super) fn start_keeper(
    launch: &Launch,
    settings: &Settings,
    pipeline: &Pipeline,
) -> Vec<Reattach> {
    match &launch.session {
        Some(file) => tern_core::keeper::start_face(pipeline, &settings.config.session, file),
        None => Vec::new(),
    }
}

impl TernApp {
    /// At exit: the programs stay with the keeper when the person chose so; otherwise
    /// they end with the pipeline, as always.
    pub(super) fn keep_or_end(&mut self) {
        if self.desk.keep_running && self.core.pipeline().detach() {
            eprintln!("tern: the programs keep running; the next start takes them back");
        }
    }
}

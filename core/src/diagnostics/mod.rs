//! The diagnostics report: everything the diagnostics panel shows (delivery table,
//! throughput and busy share over the last minute, latency histograms, breadcrumbs,
//! environment) as one serde type, written as RON by the window's "Export report" and
//! by `tern --headless --diagnostics-report PATH`.
//!
//! Building a report reads counters the pipeline keeps anyway (atomics, the breadcrumb
//! ring, the sample ring); nothing here runs unless someone asks for a report.
//! [`DiagnosticsReport::redacted`] shortens pane ids and paths under the home folder
//! before a report leaves the machine.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::pipeline::diag::{APP_CRUMB, Histogram, PaneSample, Sample, bucket_quantile_us};
use crate::pipeline::{PaneId, Pipeline};

mod pane_row;

pub use pane_row::PaneRow;

/// Where a pane lives in the app's layout, supplied by the app (the pipeline knows only
/// pane ids).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaneLabel {
    pub worktree: String,
    pub tab: String,
    pub pane: String,
    /// A lasting id for the pane (a session id); reports shorten it to a suffix. `None`:
    /// the pipeline's pane number, which identifies nothing outside this process.
    pub id: Option<String>,
}

impl PaneLabel {
    /// A label for a pane the app does not place anywhere (yet).
    pub fn unplaced(pane: PaneId) -> PaneLabel {
        PaneLabel {
            worktree: "-".into(),
            tab: "-".into(),
            pane: format!("pane {}", pane.0),
            id: None,
        }
    }

    /// The pane's full id: the app's, or the pipeline's number.
    pub fn full_id(&self, pane: PaneId) -> String {
        self.id.clone().unwrap_or_else(|| pane.0.to_string())
    }
}

/// The wgpu adapter the window draws with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AdapterInfo {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub driver_info: String,
    /// A CPU rasterizer (llvmpipe, lavapipe, SwiftShader, WARP): everything is slow.
    pub software: bool,
}

impl AdapterInfo {
    /// Whether an adapter of this name and device type renders on the CPU.
    pub fn is_software(name: &str, device_type: &str) -> bool {
        let name = name.to_ascii_lowercase();
        device_type.eq_ignore_ascii_case("cpu")
            || ["llvmpipe", "lavapipe", "swiftshader", "softpipe", "warp"]
                .iter()
                .any(|s| name.contains(s))
    }
}

/// What tern runs on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    pub tern_version: String,
    pub os: String,
    pub arch: String,
    /// `"window"` or `"headless"`.
    pub mode: String,
    pub adapter: Option<AdapterInfo>,
    /// egui points → physical pixels.
    pub pixels_per_point: Option<f32>,
    pub font: Option<String>,
    pub config_path: Option<String>,
    /// Characters asked for that no font has (drawn as boxes; only the first is
    /// logged on stderr).
    #[serde(default)]
    pub missing_glyph_chars: u64,
}

impl Environment {
    /// Version, OS and architecture; the window fills in the rest.
    pub fn current(mode: &str) -> Environment {
        Environment {
            tern_version: env!("CARGO_PKG_VERSION").into(),
            os: os_description(),
            arch: std::env::consts::ARCH.into(),
            mode: mode.into(),
            ..Environment::default()
        }
    }
}

/// `linux (Debian GNU/Linux 12 (bookworm))` where `/etc/os-release` says so.
fn os_description() -> String {
    let os = std::env::consts::OS;
    let pretty = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_owned())
        });
    match pretty {
        Some(p) => format!("{os} ({p})"),
        None => os.into(),
    }
}

/// A power-of-two latency histogram: `buckets[i]` counts samples in `[2^(i-1), 2^i)` µs
/// (bucket 0: under 1 µs), trailing empty buckets left out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistogramReport {
    pub buckets: Vec<u64>,
    pub count: u64,
    pub p50_us: u64,
    pub p99_us: u64,
}

impl HistogramReport {
    pub fn from_buckets(buckets: &[u64]) -> HistogramReport {
        let used = buckets.iter().rposition(|&c| c > 0).map_or(0, |i| i + 1);
        HistogramReport {
            buckets: buckets[..used].to_vec(),
            count: buckets.iter().sum(),
            p50_us: bucket_quantile_us(buckets, 0.5),
            p99_us: bucket_quantile_us(buckets, 0.99),
        }
    }

    pub fn of(h: &Histogram) -> HistogramReport {
        HistogramReport::from_buckets(&h.buckets())
    }
}

/// The model thread's load.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelReport {
    pub busy_ns: u64,
    pub rounds: u64,
    /// Busy time / wall time over the samples of the last minute (0..=1).
    pub busy_share_last_minute: f64,
    /// Polls for input after a reply instead of sleeping (`pipeline::reply_poll`),
    /// those that ended with input (a wake-up saved), and the time spent polling.
    #[serde(default)]
    pub reply_polls: u64,
    #[serde(default)]
    pub reply_polls_caught: u64,
    #[serde(default)]
    pub reply_poll_ns: u64,
    /// Decoded image bytes alive in the process, every pane's and those the window
    /// still holds (`model::images::live_image_bytes`; capped at
    /// `TOTAL_IMAGE_BYTES`).
    #[serde(default)]
    pub image_bytes_total: u64,
}

/// Rates between one sample and the one before it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RatePoint {
    /// Milliseconds since the pipeline started.
    pub at_ms: u64,
    /// Share of this interval the model thread was busy (0..=1).
    pub model_busy_share: f64,
    /// Bytes read per second, per pane id.
    pub bytes_per_s: Vec<(String, f64)>,
}

/// One breadcrumb.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrumbRow {
    /// Milliseconds since the pipeline started.
    pub at_ms: u64,
    /// The pane's id; `None` for the app's own.
    pub pane: Option<String>,
    pub what: String,
}

/// Everything the diagnostics panel shows, at one instant.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DiagnosticsReport {
    /// Seconds since the Unix epoch when the report was made.
    pub created_unix_s: u64,
    pub uptime_ms: u64,
    pub environment: Environment,
    pub model: ModelReport,
    /// One row per pty, in pane order.
    pub panes: Vec<PaneRow>,
    /// Query → reply latency, all panes together.
    pub reply_latency_us: HistogramReport,
    /// The window's frame build time (`None` headless).
    pub frame_time_us: Option<HistogramReport>,
    /// The last minute, one point per sample.
    pub throughput: Vec<RatePoint>,
    pub breadcrumbs: Vec<CrumbRow>,
}

/// What the caller adds to the pipeline's counters.
pub struct ReportInputs<'a> {
    pub labels: &'a dyn Fn(PaneId) -> PaneLabel,
    pub environment: &'a Environment,
    pub frame_times: Option<&'a Histogram>,
}

impl DiagnosticsReport {
    /// Reads the pipeline's counters now. Cost: O(panes + samples + breadcrumbs).
    pub fn collect(pipeline: &Pipeline, inputs: &ReportInputs<'_>) -> DiagnosticsReport {
        let rows = pipeline.report();
        let mut ids: Vec<(u64, String)> = Vec::with_capacity(rows.len());
        let mut id_of = |pane: u64| -> String {
            if let Some((_, id)) = ids.iter().find(|(p, _)| *p == pane) {
                return id.clone();
            }
            let id = (inputs.labels)(PaneId(pane)).full_id(PaneId(pane));
            ids.push((pane, id.clone()));
            id
        };
        let mut reply_buckets = vec![0u64; 32];
        let panes: Vec<PaneRow> = rows
            .iter()
            .map(|r| {
                for (acc, b) in reply_buckets.iter_mut().zip(&r.reply_latency_buckets) {
                    *acc += b;
                }
                let label = (inputs.labels)(PaneId(r.pane));
                PaneRow {
                    id: id_of(r.pane),
                    worktree: label.worktree,
                    tab: label.tab,
                    label: label.pane,
                    pty: r.clone(),
                }
            })
            .collect();
        let (busy_ns, rounds) = pipeline.model_busy();
        let polls = pipeline.model_reply_polls();
        let uptime = pipeline.uptime();
        let now_ns = uptime.as_nanos() as u64;
        // The samples, then "now" from the live counters, so the plots end at the present.
        let mut samples = pipeline.samples();
        if samples
            .last()
            .is_none_or(|s| now_ns.saturating_sub(s.at_ns) >= 100_000_000)
        {
            samples.push(Sample {
                at_ns: now_ns,
                model_busy_ns: busy_ns,
                panes: rows
                    .iter()
                    .map(|r| PaneSample {
                        pane: r.pane,
                        bytes_read: r.bytes_read,
                        bytes_parsed: r.bytes_parsed,
                        frames_built: r.frames_built,
                    })
                    .collect(),
            });
        }
        let throughput = rates(&samples, &mut id_of);
        let busy_share_last_minute = match (samples.first(), samples.last()) {
            (Some(a), Some(b)) if b.at_ns > a.at_ns => {
                (b.model_busy_ns.saturating_sub(a.model_busy_ns) as f64
                    / (b.at_ns - a.at_ns) as f64)
                    .clamp(0.0, 1.0)
            }
            _ => 0.0,
        };
        let breadcrumbs = pipeline
            .breadcrumbs()
            .into_iter()
            .map(|c| CrumbRow {
                at_ms: c.at_ns / 1_000_000,
                pane: (c.pane != APP_CRUMB).then(|| id_of(c.pane)),
                what: c.what,
            })
            .collect();
        DiagnosticsReport {
            created_unix_s: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            uptime_ms: uptime.as_millis() as u64,
            environment: inputs.environment.clone(),
            model: ModelReport {
                busy_ns,
                rounds,
                busy_share_last_minute,
                reply_polls: polls.polls,
                reply_polls_caught: polls.caught,
                reply_poll_ns: polls.poll_ns,
                image_bytes_total: crate::model::images::live_image_bytes() as u64,
            },
            panes,
            reply_latency_us: HistogramReport::from_buckets(&reply_buckets),
            frame_time_us: inputs.frame_times.map(HistogramReport::of),
            throughput,
            breadcrumbs,
        }
    }

    /// The report with pane ids shortened to suffixes, paths under the home folder
    /// written with `~`, everywhere they appear, and (unless the redactor keeps them)
    /// tab and pane titles, which programs set, replaced by positions.
    pub fn redacted(&self, redactor: &Redactor) -> DiagnosticsReport {
        let mut r = redactor.clone();
        for row in &self.panes {
            r.add_id(&row.id);
        }
        for c in &self.breadcrumbs {
            if let Some(id) = &c.pane {
                r.add_id(id);
            }
        }
        let mut out = self.clone();
        for (i, row) in out.panes.iter_mut().enumerate() {
            row.id = short_id(&row.id);
            row.worktree = r.text(&row.worktree);
            if r.keep_titles {
                row.tab = r.text(&row.tab);
                row.label = r.text(&row.label);
            } else {
                row.tab = tab_position(&row.tab);
                row.label = format!("pane {}", i + 1);
            }
        }
        for point in &mut out.throughput {
            for (id, _) in &mut point.bytes_per_s {
                *id = short_id(id);
            }
        }
        for c in &mut out.breadcrumbs {
            c.pane = c.pane.as_deref().map(short_id);
            c.what = r.text(&c.what);
        }
        let env = &mut out.environment;
        for s in [&mut env.font, &mut env.config_path].into_iter().flatten() {
            *s = r.text(s);
        }
        out
    }

    pub fn to_ron(&self) -> Result<String, String> {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .map_err(|e| format!("cannot write the report: {e}"))
    }

    pub fn from_ron(text: &str) -> Result<DiagnosticsReport, String> {
        ron::from_str(text).map_err(|e| format!("cannot read the report: {e}"))
    }
}

/// Rates between consecutive samples (a pane missing from the earlier one starts at 0).
fn rates(samples: &[Sample], id_of: &mut dyn FnMut(u64) -> String) -> Vec<RatePoint> {
    samples
        .windows(2)
        .filter_map(|w| {
            let (a, b) = (&w[0], &w[1]);
            let dt_ns = b.at_ns.checked_sub(a.at_ns).filter(|&d| d > 0)?;
            let dt_s = dt_ns as f64 / 1e9;
            let bytes_per_s = b
                .panes
                .iter()
                .map(|p| {
                    let before = a
                        .panes
                        .iter()
                        .find(|q| q.pane == p.pane)
                        .map_or(0, |q| q.bytes_read);
                    (
                        id_of(p.pane),
                        p.bytes_read.saturating_sub(before) as f64 / dt_s,
                    )
                })
                .collect();
            Some(RatePoint {
                at_ms: b.at_ns / 1_000_000,
                model_busy_share: (b.model_busy_ns.saturating_sub(a.model_busy_ns) as f64
                    / dt_ns as f64)
                    .clamp(0.0, 1.0),
                bytes_per_s,
            })
        })
        .collect()
}

/// The last characters of an id: enough to tell panes apart in one report, too few to
/// identify a session.
pub fn short_id(full: &str) -> String {
    const KEEP: usize = 6;
    let n = full.chars().count();
    if n <= KEEP {
        return full.to_owned();
    }
    let tail: String = full.chars().skip(n - KEEP).collect();
    format!("…{tail}")
}

/// Rewrites text for a report: the home folder becomes `~`, full pane ids their suffix.
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    home: Option<String>,
    /// Full ids, longest first (so one id inside another is replaced whole).
    ids: Vec<String>,
    /// Keep tab and pane titles (programs set them: they may hold hosts, paths,
    /// commands); off by default.
    keep_titles: bool,
}

/// A tab label without its title: "tab" and the tab's number if the label has one.
fn tab_position(label: &str) -> String {
    let digits: String = label
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    if digits.is_empty() {
        "tab".to_owned()
    } else {
        format!("tab {digits}")
    }
}

impl Redactor {
    /// Uses `$HOME`.
    pub fn from_env() -> Redactor {
        Redactor::with_home(std::env::var("HOME").ok().as_deref())
    }

    pub fn with_home(home: Option<&str>) -> Redactor {
        let home = home
            .map(|h| h.trim_end_matches('/'))
            .filter(|h| !h.is_empty())
            .map(str::to_owned);
        Redactor {
            home,
            ids: Vec::new(),
            keep_titles: false,
        }
    }

    /// Keeps tab and pane titles in reports (opt-in: programs set them).
    pub fn keeping_titles(mut self) -> Redactor {
        self.keep_titles = true;
        self
    }

    fn add_id(&mut self, id: &str) {
        if id.chars().count() > 6 && !self.ids.iter().any(|i| i == id) {
            self.ids.push(id.to_owned());
            self.ids.sort_by_key(|i| std::cmp::Reverse(i.len()));
        }
    }

    /// `s` with the home folder as `~` (only where a path component ends) and known full
    /// ids shortened.
    pub fn text(&self, s: &str) -> String {
        let mut out = s.to_owned();
        for id in &self.ids {
            if out.contains(id.as_str()) {
                out = out.replace(id.as_str(), &short_id(id));
            }
        }
        if let Some(home) = &self.home {
            out = replace_home(&out, home);
        }
        out
    }

    /// A path for display and reports.
    pub fn path(&self, p: &Path) -> String {
        self.text(&p.display().to_string())
    }
}

fn replace_home(s: &str, home: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(home) {
        let after = &rest[i + home.len()..];
        let ends_component = after
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'));
        out.push_str(&rest[..i]);
        out.push_str(if ends_component { "~" } else { home });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Where reports go when no save dialog can be shown:
/// `$XDG_STATE_HOME/tern` or `~/.local/state/tern`, else the temp folder.
pub fn default_report_dir() -> PathBuf {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".local/state"))
        });
    match state {
        Some(dir) => dir.join("tern"),
        None => std::env::temp_dir().join("tern"),
    }
}

/// `diagnostics-<unix seconds>.ron` in [`default_report_dir`].
pub fn default_report_path(created_unix_s: u64) -> PathBuf {
    default_report_dir().join(format!("diagnostics-{created_unix_s}.ron"))
}

/// Writes `text` to `path` atomically (a temp file beside it, then rename), creating
/// the folder.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    crate::atomic_file::write_atomic(path, text.as_bytes())
}

/// Writes a report to `path`, or to [`default_report_path`] when `path` is `None`, and
/// returns where it went. If `path` cannot be written, the default place is tried.
pub fn write_report(report: &DiagnosticsReport, path: Option<&Path>) -> Result<PathBuf, String> {
    let text = report.to_ron()?;
    let fallback = default_report_path(report.created_unix_s);
    if let Some(p) = path {
        match write_atomic(p, &text) {
            Ok(()) => return Ok(p.to_owned()),
            Err(e) => {
                let first = format!("cannot write {}: {e}", p.display());
                return write_atomic(&fallback, &text)
                    .map(|()| fallback.clone())
                    .map_err(|e2| format!("{first}; nor {}: {e2}", fallback.display()));
            }
        }
    }
    write_atomic(&fallback, &text)
        .map(|()| fallback.clone())
        .map_err(|e| format!("cannot write {}: {e}", fallback.display()))
}

#[cfg(test)]
mod tests;

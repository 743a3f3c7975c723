//! The workspace around the panes: the tab bar with badges, the sidebar's panel and the
//! split dividers. Each draws from what it is given and returns [`Action`]s.

use egui::RichText;
use tern_core::pipeline::PaneId;
use tern_core::workspace::split_tree::{Axis, Rect};
use tern_core::workspace::{Badges, Location, TabId, Workspace};

use super::action::Action;
use super::badges::{badge_words, badged_title, labelled};
use super::commands::Command;
use super::sidebar::{GroupInfo, Sidebar};
use super::theme::Theme;

pub const TAB_BAR_HEIGHT: f32 = 26.0;
pub const SIDEBAR_WIDTH: f32 = 220.0;
/// Points between split panes (the divider you drag).
pub const DIVIDER: f32 = 4.0;

/// One tab as the tab bar shows it.
#[derive(Clone, Debug)]
pub struct TabEntry {
    pub id: TabId,
    pub title: String,
    pub badges: Badges,
    pub attention: super::activity::Attention,
}

/// What the tab bar shows: the active worktree's tabs.
#[derive(Clone, Debug)]
pub struct TabStrip {
    /// The worktree group's index in the workspace.
    pub group: usize,
    pub group_name: String,
    pub tabs: Vec<TabEntry>,
    pub active: usize,
}

/// The tab bar's fill: none on a dark terminal background, where the bar sits on the
/// window's clear colour (kitty's tab bar takes the terminal's background too, and the
/// chrome's light text reads on it); the chrome's own colour on a light one. Issue 32:
/// on a software renderer the fill, 725x25 px at 80 columns, cost ~1.2 ms of rasterizer
/// time in every frame of a window with tabs.
pub fn bar_fill(chrome: egui::Color32, on_dark: bool) -> egui::Color32 {
    if on_dark {
        egui::Color32::TRANSPARENT
    } else {
        chrome
    }
}

/// The tabs of the active worktree: click to show, drag to reorder, × to close, + for
/// a new tab. Badges show what each hidden tab has to say.
#[must_use = "what the panel asks for happens only when applied"]
pub fn tab_bar(ui: &mut egui::Ui, strip: &TabStrip, theme: &Theme, on_dark: bool) -> Vec<Action> {
    let colors = &theme.chrome;
    let mut actions = Vec::new();
    let mut drag: Option<(usize, f32)> = None;
    let mut rects = Vec::new();
    egui::Panel::top("tern-tabs")
        .exact_size(TAB_BAR_HEIGHT)
        .frame(
            egui::Frame::NONE
                .fill(bar_fill(colors.tab_bar, on_dark))
                .inner_margin(2.0),
        )
        .show(ui, |ui| {
            ui.horizontal_centered(|ui| {
                ui.label(
                    RichText::new(&strip.group_name)
                        .color(colors.text_dim)
                        .small(),
                );
                for (i, tab) in strip.tabs.iter().enumerate() {
                    let active = i == strip.active;
                    let color = if active {
                        colors.text_strong
                    } else {
                        colors.text
                    };
                    let text = badged_title(
                        &tab.title,
                        tab.badges,
                        egui::FontId::proportional(13.0),
                        color,
                        theme,
                    );
                    let r = ui
                        .add(
                            egui::Button::selectable(active, text)
                                .sense(egui::Sense::click_and_drag()),
                        )
                        .on_hover_text(
                            [
                                tab.title.clone(),
                                badge_words(tab.badges),
                                tab.attention.why.clone().unwrap_or_default(),
                            ]
                            .iter()
                            .filter(|l| !l.is_empty())
                            .cloned()
                            .collect::<Vec<_>>()
                            .join("\n"),
                        );
                    if let Some(p) = tab.attention.progress {
                        super::activity::progress_bar(ui.painter(), r.rect, p, theme);
                    }
                    let label = labelled("tab", &tab.title, tab.badges) + &tab.attention.suffix();
                    ui.ctx()
                        .accesskit_node_builder(r.id, |n| n.set_label(label));
                    if r.clicked() {
                        actions.push(Action::SelectTab(i));
                    }
                    if r.middle_clicked() {
                        actions.push(Action::CloseTab(tab.id));
                    }
                    if r.drag_stopped()
                        && let Some(pos) = r.interact_pointer_pos()
                    {
                        drag = Some((i, pos.x));
                    }
                    rects.push(r.rect);
                    if ui.small_button("×").on_hover_text("Close tab").clicked() {
                        actions.push(Action::CloseTab(tab.id));
                    }
                }
                if ui
                    .button("+")
                    .on_hover_text("New tab (Ctrl+Shift+T)")
                    .clicked()
                {
                    actions.push(Action::Run(Command::NewTab));
                }
            });
        });
    if let Some((from, x)) = drag {
        // Its place among the other tabs: after every tab whose middle it passed.
        let to = rects
            .iter()
            .enumerate()
            .filter(|(i, r)| *i != from && r.center().x < x)
            .count();
        if to != from {
            actions.push(Action::MoveTab {
                group: strip.group,
                from,
                to,
            });
        }
    }
    actions
}

/// The worktree sidebar (see `sidebar/`) in a panel on the left.
#[must_use = "what the panel asks for happens only when applied"]
pub fn sidebar(
    ui: &mut egui::Ui,
    sidebar: &mut Sidebar,
    groups: &[GroupInfo],
    theme: &Theme,
) -> Vec<Action> {
    let mut actions = Vec::new();
    egui::Panel::left("tern-sidebar")
        .exact_size(SIDEBAR_WIDTH)
        .resizable(false)
        .show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                actions = sidebar.ui(ui, groups, theme);
            });
        });
    actions.into_iter().map(Action::Sidebar).collect()
}

/// Draggable dividers between the active tab's split panes.
#[must_use = "what the panel asks for happens only when applied"]
pub fn dividers(
    ui: &mut egui::Ui,
    ws: &Workspace<PaneId>,
    area: Rect,
    theme: &Theme,
) -> Vec<Action> {
    let mut actions = Vec::new();
    let Some(tab) = ws.active_tab() else {
        return actions;
    };
    let at = Location {
        group: ws.active,
        tab: ws.groups[ws.active].active_tab,
    };
    for d in tab.layout.dividers(area, DIVIDER) {
        let rect = egui::Rect::from_min_size(
            egui::pos2(d.rect.x, d.rect.y),
            egui::vec2(d.rect.w, d.rect.h),
        );
        let id = egui::Id::unique(("tern-divider", &d.path));
        let r = ui.interact(rect.expand(2.0), id, egui::Sense::drag());
        let hot = r.hovered() || r.dragged();
        let color = if hot {
            theme.chrome.divider_hot
        } else {
            theme.chrome.divider
        };
        ui.painter().rect_filled(rect, 0.0, color);
        if hot {
            ui.ctx().set_cursor_icon(match d.axis {
                Axis::Horizontal => egui::CursorIcon::ResizeHorizontal,
                Axis::Vertical => egui::CursorIcon::ResizeVertical,
            });
        }
        if r.dragged()
            && let Some(pos) = r.interact_pointer_pos()
        {
            let ratio = match d.axis {
                Axis::Horizontal => (pos.x - d.parent.x) / d.parent.w.max(1.0),
                Axis::Vertical => (pos.y - d.parent.y) / d.parent.h.max(1.0),
            };
            actions.push(Action::SetRatio {
                at,
                path: d.path,
                ratio,
            });
        }
    }
    actions
}

//! The OSC 8 link table: each link a program opens gets an id that cells carry
//! (`CellExtra::hyperlink`). Ids count up and are never handed out twice, not even
//! after a full reset, so a row the UI still holds cannot come to point somewhere new.
//!
//! The table holds at most [`MAX_HYPERLINKS`] links. When it is full, the links no cell
//! refers to (on either screen, in the scrollback, or in the pen and the saved cursors)
//! are dropped ([`super::State::collect_links`]), the way kitty collects its
//! pool: `ls --hyperlink` opens a link per file name, and after 4,096 of them no new
//! link would open until restart. A collection that frees little is not tried again
//! for [`MAX_HYPERLINKS`]` / 4` refused links, so a screen full of live links does
//! not make every new one scan the history.

use super::Hyperlink;

/// Most links one terminal holds.
pub const MAX_HYPERLINKS: usize = 4096;

/// Links by id, in id order (ids only grow, so pushing keeps the order).
#[derive(Debug, Default)]
pub struct LinkTable {
    links: Vec<(u32, Hyperlink)>,
    next_id: u32,
    /// Refusals to wait before the next collection.
    collect_after: usize,
}

impl LinkTable {
    pub fn get(&self, id: u32) -> Option<&Hyperlink> {
        self.links
            .binary_search_by_key(&id, |(i, _)| *i)
            .ok()
            .map(|at| &self.links[at].1)
    }

    pub fn len(&self) -> usize {
        self.links.len()
    }

    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Hyperlink> {
        self.links.iter().map(|(_, h)| h)
    }

    /// The newest link with this `id=` and target (links without an `id=` are never
    /// shared).
    pub fn find(&self, id: Option<&str>, uri: &str) -> Option<u32> {
        id?;
        self.links
            .iter()
            .rev()
            .find(|(_, h)| h.uri == uri && h.id.as_deref() == id)
            .map(|(i, _)| *i)
    }

    /// Whether a new link has room.
    pub fn has_room(&self) -> bool {
        self.links.len() < MAX_HYPERLINKS && self.next_id < u32::MAX
    }

    /// Adds a link (the caller checked [`LinkTable::has_room`]); its new id.
    pub fn insert(&mut self, link: Hyperlink) -> u32 {
        let id = self.next_id;
        self.next_id = self.next_id.saturating_add(1);
        self.links.push((id, link));
        id
    }

    /// Whether a collection is due now (else one more refusal is counted).
    pub fn collection_due(&mut self) -> bool {
        if self.collect_after > 0 {
            self.collect_after -= 1;
            return false;
        }
        true
    }

    /// Keeps the links `used` holds; returns how many went. A collection that left
    /// the table over three quarters full waits a quarter table of refusals.
    pub fn retain(&mut self, used: &std::collections::HashSet<u32>) -> usize {
        let before = self.links.len();
        self.links.retain(|(id, _)| used.contains(id));
        if self.links.len() > MAX_HYPERLINKS * 3 / 4 {
            self.collect_after = MAX_HYPERLINKS / 4;
        }
        before - self.links.len()
    }
}

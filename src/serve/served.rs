//! What every answer of the server is made of: a reply (status and JSON), the errors as
//! replies, and the game behind the API ([`Served`]), below the routes that answer
//! (`mod.rs`, `uwapi.rs`).

use crate::catalog::Session;
use crate::game::GameError;
use crate::progress::Progress;
use serde_json::{Value as Json, json};
use std::time::Instant;

/// Replies larger than this are refused (413): the answer, and the work that builds it (a
/// move's position text for every move), are bounded before they are made.
pub const MAX_REPLY: usize = 16 << 20;

/// An answer: HTTP status and body.
pub type Reply = (u16, Json);

pub(super) fn error(status: u16, message: impl std::fmt::Display) -> Reply {
    (status, json!({ "error": message.to_string() }))
}

/// A game error as a reply: the request's fault (400), too much work (422), or the game
/// definition's (500, never a crash). No file path of the server's goes to the client
/// ([`redact`]): the server's own log (stderr) keeps the whole message of a 500.
pub(super) fn game_error(e: GameError) -> Reply {
    let text = e.to_string();
    let client = redact(&text);
    match e {
        GameError::BadPosition(_) | GameError::BadMove(_) => error(400, client),
        GameError::TimeLimit(_) => error(503, format!("{client} (this server's limit for one request)")),
        GameError::OutOfMemory(_) | GameError::Unsupported(_) => error(422, client),
        GameError::Definition(_) | GameError::Database(_) => {
            eprintln!("gamesman: serve: {text}");
            error(500, client)
        }
    }
}

/// `text` with every file path in it cut to its last part (`…/name`): a word that holds a
/// `/` (words end at white space, quotes, backticks, brackets, commas and semicolons).
pub fn redact(text: &str) -> String {
    let is_end = |c: char| c.is_whitespace() || "`'\"()[]{},;<>".contains(c);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let word_len = rest.find(is_end).unwrap_or(rest.len());
        if word_len == 0 {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let word = &rest[..word_len];
        match word.rfind('/') {
            Some(at) => {
                out.push_str("…/");
                out.push_str(&word[at + 1..]);
            }
            None => out.push_str(word),
        }
        rest = &rest[word_len..];
    }
    out
}

/// One game behind the API: its session, and the clock of the request being answered.
pub struct Served {
    pub(super) session: Box<dyn Session>,
    pub(super) progress: Progress,
    /// The deadline of the request being answered, if it has one.
    pub(super) deadline: Option<Instant>,
    /// The comment that opens the game's definition file, if it has one: its instructions.
    pub(super) notes: Option<String>,
    /// The same game in misère play (whoever makes the last move loses), for an impartial
    /// game where that is a game of its own ([`uwapi::offers_misere`]): the Universal Web
    /// API's `misere` variant.
    pub(super) misere: Option<Box<dyn Session>>,
}

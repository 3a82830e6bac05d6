//! `gamesman serve`: a web page to play and study any game, and the JSON API behind it.
//!
//! One more front end over the catalogue's [`crate::catalog::Session`]: every answer comes
//! from the game's saved database where there is one, and from search otherwise; no game
//! logic lives here.
//!
//! The games (Rhai engines among them) are not `Send`, so they live on one thread of their
//! own, which answers requests in turn; the HTTP side (axum on tokio) passes each request to
//! it over a channel and waits for the reply.
//!
//! API (all `GET`, all JSON; errors are `{"error": message}` with a 4xx status):
//! - `/api/games`: the games served;
//! - `/api/{game}/position?p=TEXT`: value, remoteness, Grundy value, the board, every move
//!   with its child's value (default `p`: the start position);
//! - `/api/{game}/play?p=TEXT&m=MOVE`: the position after a move (as `play` reads moves);
//! - `/api/{game}/solution?p=TEXT`: a puzzle's shortest solution (a two-player game's
//!   winning moves).

use crate::catalog::{Catalog, Database, How, Session};
use crate::game::{GameError, Value};
use crate::progress::Progress;
use crate::solve::{MoveInfo, Options};
use serde_json::{Value as Json, json};
use std::collections::HashMap;
use std::sync::mpsc;
use std::time::Duration;
use tokio::sync::oneshot;

/// The page: one file, no framework, no network.
const PAGE: &str = include_str!("page.html");

/// Position text longer than this is refused (413) before it is parsed (a Lights Out board
/// of 140 × 140 fits).
pub const MAX_POSITION: usize = 20_000;

/// An answer: HTTP status and body.
pub type Reply = (u16, Json);

fn error(status: u16, message: impl std::fmt::Display) -> Reply {
    (status, json!({ "error": message.to_string() }))
}

/// A game error as a reply: the request's fault (400), too much work (422), or the game
/// definition's (500, never a crash).
fn game_error(e: GameError) -> Reply {
    match e {
        GameError::BadPosition(_) | GameError::BadMove(_) => error(400, e),
        GameError::OutOfMemory(_) | GameError::TimeLimit(_) | GameError::Unsupported(_) => error(422, e),
        GameError::Definition(_) | GameError::Database(_) => error(500, e),
    }
}

/// One game behind the API: its session, and the clock of the request being answered.
pub struct Served {
    session: Box<dyn Session>,
    progress: Progress,
}

fn move_json(m: &MoveInfo) -> Json {
    let mut j = m.to_json();
    j["mover"] = m.mover.as_str().into();
    j
}

impl Served {
    /// Serve `spec` from `catalog`, each request within `limit`, the solvers' tables within
    /// `max_memory` bytes; its saved database read unless `no_db`.
    pub fn open(
        catalog: &Catalog,
        spec: &str,
        limit: Duration,
        max_memory: usize,
        no_db: bool,
    ) -> anyhow::Result<Served> {
        let progress = Progress::budget(limit);
        let how = How {
            options: Options { max_memory, progress: progress.clone(), ..Options::default() },
            database: if no_db { Database::Off } else { Database::SavedOrSearch },
            ..How::default()
        };
        Ok(Served { session: catalog.open(spec, &how)?, progress })
    }

    /// Name, kind, description, start position, players.
    pub fn summary(&self) -> Json {
        let info = self.session.info();
        json!({
            "name": info.name,
            "kind": info.kind.as_str(),
            "description": info.description,
            "engine": self.session.engine(),
            "start": self.session.start().ok().flatten(),
            "players": [info.player_name(0), info.player_name(1)],
            "solved_message": info.solved_message,
        })
    }

    fn parse(&self, text: Option<&str>) -> Result<String, Reply> {
        match text {
            Some(t) if t.len() > MAX_POSITION => {
                Err(error(413, format!("the position text is {} bytes, more than the {MAX_POSITION} served", t.len())))
            }
            Some(t) => self.session.normalize(t).map_err(game_error),
            None => match self.session.start().map_err(game_error)? {
                Some(p) => Ok(p),
                None => {
                    Err(error(400, format!("{} has no start position: give one with ?p=", self.session.info().name)))
                }
            },
        }
    }

    /// Run `f` with a fresh time budget; after a failure, forget the searches made.
    fn answer(&mut self, f: impl FnOnce(&mut Self) -> Result<Json, Reply>) -> Reply {
        self.progress.restart();
        match f(self) {
            Ok(j) => (200, j),
            Err(e) => {
                self.session.reset();
                e
            }
        }
    }

    fn describe(&mut self, pos: &str) -> Result<Json, Reply> {
        let g = &mut self.session;
        let over = g.primitive(pos).map_err(game_error)?;
        let source = g.source(pos).map_err(game_error)?;
        let (s, grundy) = g.value(pos).map_err(game_error)?;
        let moves = g.moves(pos).map_err(game_error)?;
        let board_json = match g.board(pos).map_err(game_error)? {
            None => Json::Null,
            Some(b) => {
                let cells: Vec<Json> = b
                    .cells
                    .iter()
                    .map(|c| {
                        let mut j = json!({ "text": c.text });
                        if let Some(m) = &c.click {
                            j["click"] = m.name.as_str().into();
                            j["position"] = m.position.as_str().into();
                            j["value"] = m.value.as_str().into();
                            j["remoteness"] = m.remoteness.into();
                            j["grundy"] = m.grundy.into();
                            j["mover"] = m.mover.as_str().into();
                        }
                        j
                    })
                    .collect();
                json!({ "rows": b.rows, "cols": b.cols, "cells": cells })
            }
        };
        let info = g.info();
        Ok(json!({
            "game": info.name,
            "kind": info.kind.as_str(),
            "engine": g.engine(),
            "position": pos,
            "show": g.show(pos).map_err(game_error)?,
            "value": s.value.as_str(),
            "remoteness": s.remoteness,
            "grundy": grundy,
            "over": over.map(Value::as_str),
            "to_move": g.to_move(pos).map_err(game_error)?,
            "players": [info.player_name(0), info.player_name(1)],
            "remoteness_note": g.remoteness_note(),
            "source": source,
            "board": board_json,
            "moves": moves.iter().map(move_json).collect::<Vec<_>>(),
        }))
    }

    pub fn position(&mut self, text: Option<&str>) -> Reply {
        self.answer(|s| {
            let pos = s.parse(text)?;
            s.describe(&pos)
        })
    }

    pub fn play(&mut self, text: Option<&str>, mv: &str) -> Reply {
        self.answer(|s| {
            let pos = s.parse(text)?;
            if s.session.primitive(&pos).map_err(game_error)?.is_some() {
                return Err(error(400, "the game is over here"));
            }
            let (_, child) = s.session.play(&pos, mv).map_err(game_error)?;
            Ok(json!({ "position": child }))
        })
    }

    pub fn solution(&mut self, text: Option<&str>) -> Reply {
        self.answer(|s| {
            let pos = s.parse(text)?;
            let r = s.session.solve(&pos).map_err(game_error)?;
            let moves: Vec<Json> =
                r.winning_moves.iter().map(|m| json!({"move": m.name, "position": m.position})).collect();
            Ok(json!({ "value": r.value.as_str(), "remoteness": r.remoteness, "moves": moves }))
        })
    }
}

/// What the HTTP side asks the game thread.
enum Job {
    Games,
    Position { game: String, p: Option<String> },
    Play { game: String, p: Option<String>, m: String },
    Solution { game: String, p: Option<String> },
}

/// The game thread: answer jobs until the server stops.
fn game_loop(games: Vec<(String, Served)>, jobs: mpsc::Receiver<(Job, oneshot::Sender<Reply>)>) {
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for (i, (name, _)) in games.iter().enumerate() {
        by_name.insert(name.clone(), i);
    }
    let mut games = games;
    for (job, reply) in jobs {
        let answer = match job {
            Job::Games => {
                let list: Vec<Json> = games
                    .iter()
                    .map(|(name, g)| {
                        let mut s = g.summary();
                        s["id"] = name.as_str().into();
                        s
                    })
                    .collect();
                (200, Json::Array(list))
            }
            Job::Position { game, p } | Job::Play { game, p, .. } | Job::Solution { game, p }
                if !by_name.contains_key(&game) =>
            {
                let _ = p;
                let names: Vec<&str> = games.iter().map(|(n, _)| n.as_str()).collect();
                error(404, format!("no game {game:?} is served (there are: {})", names.join(", ")))
            }
            Job::Position { game, p } => games[by_name[&game]].1.position(p.as_deref()),
            Job::Play { game, p, m } => games[by_name[&game]].1.play(p.as_deref(), &m),
            Job::Solution { game, p } => games[by_name[&game]].1.solution(p.as_deref()),
        };
        let _ = reply.send(answer);
    }
}

type Jobs = mpsc::Sender<(Job, oneshot::Sender<Reply>)>;

async fn ask(jobs: &Jobs, job: Job) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (tx, rx) = oneshot::channel();
    let (status, body) = match jobs.send((job, tx)) {
        Ok(()) => rx.await.unwrap_or_else(|_| error(500, "the game thread stopped")),
        Err(_) => error(500, "the game thread stopped"),
    };
    let status = axum::http::StatusCode::from_u16(status).unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
    (status, axum::Json(body)).into_response()
}

/// Serve on `addr` the games `load` makes (on the game thread, since games are not `Send`).
/// `ready` is told the address bound (with the port chosen, for port 0).
pub fn run(
    addr: std::net::SocketAddr,
    load: impl FnOnce() -> anyhow::Result<Vec<(String, Served)>> + Send + 'static,
    ready: impl FnOnce(std::net::SocketAddr, &[String]),
) -> anyhow::Result<()> {
    use axum::extract::{Path, Query, State};
    use axum::routing::get;
    let (jobs, rx) = mpsc::channel::<(Job, oneshot::Sender<Reply>)>();
    let (loaded_tx, loaded_rx) = mpsc::channel::<anyhow::Result<Vec<String>>>();
    std::thread::Builder::new().name("games".into()).spawn(move || match load() {
        Ok(games) => {
            let _ = loaded_tx.send(Ok(games.iter().map(|(n, _)| n.clone()).collect()));
            game_loop(games, rx);
        }
        Err(e) => {
            let _ = loaded_tx.send(Err(e));
        }
    })?;
    let names = loaded_rx.recv().map_err(|_| anyhow::anyhow!("the game thread stopped while loading"))??;

    type Params = Query<HashMap<String, String>>;
    let app = axum::Router::new()
        .route("/", get(|| async { axum::response::Html(PAGE) }))
        .route("/api/games", get(|State(j): State<Jobs>| async move { ask(&j, Job::Games).await }))
        .route(
            "/api/{game}/position",
            get(|State(j): State<Jobs>, Path(game): Path<String>, Query(q): Params| async move {
                ask(&j, Job::Position { game, p: q.get("p").cloned() }).await
            }),
        )
        .route(
            "/api/{game}/play",
            get(|State(j): State<Jobs>, Path(game): Path<String>, Query(q): Params| async move {
                match q.get("m") {
                    Some(m) => ask(&j, Job::Play { game, p: q.get("p").cloned(), m: m.clone() }).await,
                    None => {
                        use axum::response::IntoResponse;
                        let (_, body) = error(400, "say which move with ?m=");
                        (axum::http::StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
                    }
                }
            }),
        )
        .route(
            "/api/{game}/solution",
            get(|State(j): State<Jobs>, Path(game): Path<String>, Query(q): Params| async move {
                ask(&j, Job::Solution { game, p: q.get("p").cloned() }).await
            }),
        )
        .fallback(|| async {
            use axum::response::IntoResponse;
            let (_, body) = error(404, "no such page: the page is /, the API /api/games and /api/{game}/…");
            (axum::http::StatusCode::NOT_FOUND, axum::Json(body)).into_response()
        })
        .with_state(jobs);

    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    rt.block_on(async move {
        let listener =
            tokio::net::TcpListener::bind(addr).await.map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
        ready(listener.local_addr()?, &names);
        axum::serve(listener, app).await?;
        Ok(())
    })
}

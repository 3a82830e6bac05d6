//! `gamesman serve`: a web page to play and study any game, and the JSON API behind it.
//!
//! One more front end over the same [`Analyzer`]: every answer comes from the game's saved
//! database where there is one, and from search otherwise; no game logic lives here.
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

use crate::game::{Game, GameError, Kind, Value};
use crate::progress::Progress;
use crate::solve::{Analyzer, MoveInfo};
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

/// One game behind the API, whatever its type.
pub trait Served {
    /// Name, kind, description, start position, players.
    fn summary(&self) -> Json;
    fn position(&mut self, text: Option<&str>) -> Reply;
    fn play(&mut self, text: Option<&str>, mv: &str) -> Reply;
    fn solution(&mut self, text: Option<&str>) -> Reply;
}

/// A game and the analyzer that answers for it.
pub struct ServedGame<G: Game + 'static> {
    game: &'static G,
    engine: &'static str,
    /// Makes a fresh analyzer (with the game's database, if any): after an error, a search
    /// that stopped half way is not trusted.
    make: Box<dyn Fn(&'static G, Progress) -> Analyzer<'static, G>>,
    analyzer: Option<Analyzer<'static, G>>,
    progress: Progress,
}

impl<G: Game + 'static> ServedGame<G> {
    /// Serve `game` (kept for the life of the server), each request within `limit`.
    pub fn new(
        game: G,
        engine: &'static str,
        limit: Duration,
        make: Box<dyn Fn(&'static G, Progress) -> Analyzer<'static, G>>,
    ) -> Self {
        let game: &'static G = Box::leak(Box::new(game));
        let progress = Progress::budget(limit);
        let analyzer = Some(make(game, progress.clone()));
        ServedGame { game, engine, make, analyzer, progress }
    }

    fn analyzer(&mut self) -> &mut Analyzer<'static, G> {
        if self.analyzer.is_none() {
            self.analyzer = Some((self.make)(self.game, self.progress.clone()));
        }
        self.analyzer.as_mut().expect("just made")
    }

    fn parse(&self, text: Option<&str>) -> Result<G::Pos, Reply> {
        match text {
            Some(t) if t.len() > MAX_POSITION => {
                Err(error(413, format!("the position text is {} bytes, more than the {MAX_POSITION} served", t.len())))
            }
            Some(t) => self.game.parse(t).map_err(game_error),
            None => match self.game.start().map_err(game_error)? {
                Some(p) => Ok(p),
                None => Err(error(400, format!("{} has no start position: give one with ?p=", self.game.info().name))),
            },
        }
    }

    /// Run `f` with a fresh time budget; after a failure, start a fresh analyzer.
    fn answer(&mut self, f: impl FnOnce(&mut Self) -> Result<Json, Reply>) -> Reply {
        self.progress.restart();
        match f(self) {
            Ok(j) => (200, j),
            Err(e) => {
                // Dropped now (its database closed), made afresh at the next request.
                self.analyzer = None;
                e
            }
        }
    }

    /// The value of making a move, for the player who makes it, from the child's value (for
    /// the player then to move). A puzzle's move is "win" when it brings the goal nearer,
    /// "tie" when it keeps the distance, "lose" otherwise.
    fn for_mover(&self, here: Option<u32>, child: Value, child_r: Option<u32>) -> &'static str {
        if self.game.kind() == Kind::Puzzle {
            return match (here, child, child_r) {
                (Some(r), Value::Win, Some(c)) if c < r => "win",
                (Some(r), Value::Win, Some(c)) if c == r => "tie",
                _ => "lose",
            };
        }
        match child {
            Value::Lose => "win",
            Value::Win => "lose",
            Value::Tie => "tie",
            Value::Draw => "draw",
        }
    }

    fn move_json(&self, here: Option<u32>, m: &MoveInfo) -> Json {
        let mut j = m.to_json();
        j["mover"] = self.for_mover(here, m.value, m.remoteness).into();
        j
    }

    fn describe(&mut self, pos: &G::Pos) -> Result<Json, Reply> {
        let g = self.game;
        let text = g.format(pos).map_err(game_error)?;
        let over = g.primitive(pos).map_err(game_error)?;
        let source = if self.analyzer().saved(pos).map_err(game_error)?.is_some() { "database" } else { "search" };
        let (s, grundy) = self.analyzer().value(pos).map_err(game_error)?;
        let moves = self.analyzer().moves(pos).map_err(game_error)?;
        let mut board_json = Json::Null;
        if let Some(b) = g.board(pos).map_err(game_error)? {
            let mut cells = Vec::with_capacity(b.cells.len());
            for (i, cell) in b.cells.iter().enumerate() {
                let mut c = json!({ "text": cell });
                if let (None, Some(click)) = (over, &b.clicks[i]) {
                    match g.parse_move(pos, click) {
                        Ok(mv) => {
                            let child = g.play(pos, &mv).map_err(game_error)?;
                            let (cs, cg) = self.analyzer().value(&child).map_err(game_error)?;
                            c["click"] = click.as_str().into();
                            c["position"] = g.format(&child).map_err(game_error)?.into();
                            c["value"] = cs.value.as_str().into();
                            c["remoteness"] = cs.remoteness.into();
                            c["grundy"] = cg.into();
                            c["mover"] = self.for_mover(s.remoteness, cs.value, cs.remoteness).into();
                        }
                        Err(GameError::BadMove(_)) => {}
                        Err(e) => return Err(game_error(e)),
                    }
                }
                cells.push(c);
            }
            board_json = json!({ "rows": b.rows, "cols": b.cols, "cells": cells });
        }
        let info = g.info();
        Ok(json!({
            "game": info.name,
            "kind": info.kind.as_str(),
            "engine": self.engine,
            "position": text,
            "show": g.show(pos).map_err(game_error)?,
            "value": s.value.as_str(),
            "remoteness": s.remoteness,
            "grundy": grundy,
            "over": over.map(Value::as_str),
            "to_move": g.to_move(pos).map_err(game_error)?,
            "players": [info.player_name(0), info.player_name(1)],
            "remoteness_note": self.analyzer().remoteness_note().map(str::to_string),
            "source": source,
            "board": board_json,
            "moves": moves.iter().map(|m| self.move_json(s.remoteness, m)).collect::<Vec<_>>(),
        }))
    }
}

impl<G: Game + 'static> Served for ServedGame<G> {
    fn summary(&self) -> Json {
        let info = self.game.info();
        let start = self.game.start().ok().flatten().and_then(|p| self.game.format(&p).ok());
        json!({
            "name": info.name,
            "kind": info.kind.as_str(),
            "description": info.description,
            "engine": self.engine,
            "start": start,
            "players": [info.player_name(0), info.player_name(1)],
            "solved_message": info.solved_message,
        })
    }

    fn position(&mut self, text: Option<&str>) -> Reply {
        self.answer(|s| {
            let pos = s.parse(text)?;
            s.describe(&pos)
        })
    }

    fn play(&mut self, text: Option<&str>, mv: &str) -> Reply {
        self.answer(|s| {
            let pos = s.parse(text)?;
            if s.game.primitive(&pos).map_err(game_error)?.is_some() {
                return Err(error(400, "the game is over here"));
            }
            let m = s.game.parse_move(&pos, mv).map_err(game_error)?;
            let child = s.game.play(&pos, &m).map_err(game_error)?;
            Ok(json!({ "position": s.game.format(&child).map_err(game_error)? }))
        })
    }

    fn solution(&mut self, text: Option<&str>) -> Reply {
        self.answer(|s| {
            let pos = s.parse(text)?;
            let r = s.analyzer().solve(&pos).map_err(game_error)?;
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
fn game_loop(games: Vec<(String, Box<dyn Served>)>, jobs: mpsc::Receiver<(Job, oneshot::Sender<Reply>)>) {
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
    load: impl FnOnce() -> anyhow::Result<Vec<(String, Box<dyn Served>)>> + Send + 'static,
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

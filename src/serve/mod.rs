//! `gamesman serve`: a web page to play and study any game, and the JSON API behind it.
//!
//! One more front end over the catalogue's [`crate::catalog::Session`]: every answer comes
//! from the game's saved database where there is one, and from search otherwise; no game
//! logic lives here.
//!
//! The games (Rhai engines among them) are not `Send`, so they live on game threads, each
//! with its own copy of every game opened from the catalogue; the HTTP side (axum on hyper
//! and tokio) passes each request to them over a channel and waits for the reply. There are
//! two pools of game threads, so that one long search does not hold up anything else:
//! - the **quick** pool answers every request first, within a short budget
//!   ([`Config::quick`]): most requests end there (a position of a solved game, a move);
//! - a request that outgrows it goes to the **search** pool, at most [`Config::searches`] at a
//!   time, with the full per-request limit ([`Config::time_limit`]); past that bound it is
//!   answered at once with 503 and `Retry-After`.
//!
//! A position's answer (and a move's) is kept once given whole, in a cache bounded by bytes
//! ([`Config::cache_memory`], `cache.rs`): asked again, it is answered on the HTTP side from
//! there, without a game thread (with the header `x-gamesman-cache: hit`).
//!
//! Every request is answered within the limit (plus a tenth): past it the reply is 503
//! even if a game thread is still busy. The game thread stops too: each job carries the
//! request's deadline (its arrival and the limit), which its solvers' clock
//! ([`Progress`]) and every script operation ([`crate::progress::set_thread_deadline`]) look
//! at, so that the thread is free again by then. The search pool's threads run at a lower priority
//! than the quick pool's, so that long searches leave the cores to cheap requests. Connections are bounded ([`Config::max_connections`]),
//! and one that does not send a request's headers within [`Config::header_timeout`] (or that
//! stays idle that long between requests) is closed; both are hyper's settings.
//!
//! API (all `GET`, all JSON; errors are `{"error": message}` with a 4xx status):
//! - `/api/games`: the games served;
//! - `/api/{game}/position?p=TEXT`: value, remoteness, Grundy value, the board, every move
//!   with its child's value (default `p`: the start position);
//! - `/api/{game}/play?p=TEXT&m=MOVE`: the position after a move (as `play` reads moves);
//! - `/api/{game}/solution?p=TEXT`: a puzzle's shortest solution (a two-player game's
//!   winning moves).
//!
//! And the GAMESMAN Universal Web API under `/uwapi/` (`uwapi.rs`), which GamesmanUni reads.
//! Every answer carries `Access-Control-Allow-Origin: *`, so that a page served from
//! elsewhere may call it.

mod cache;
mod http;
mod served;
mod uwapi;

use cache::Cache;
pub use served::{MAX_REPLY, Reply, Served, redact};
use served::{error, game_error};

use crate::catalog::{Catalog, Database, How};
use crate::game::Value;
use crate::progress::Progress;
use crate::solve::{MoveInfo, Options};
use serde_json::{Value as Json, json};
use std::collections::HashMap;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// The page: one file, no framework, no network.
const PAGE: &str = include_str!("page.html");

/// Position text longer than this is refused (413) before it is parsed (a Lights Out board
/// of 140 × 140 fits).
pub const MAX_POSITION: usize = 20_000;

/// A request line longer than this is refused (414): a position of `MAX_POSITION` bytes,
/// percent-encoded, fits.
pub const MAX_URI: usize = 3 * MAX_POSITION + 1024;

/// Request headers larger than this in all are refused (431).
pub const MAX_HEADERS: usize = 64 * 1024;

/// The comment lines (`//` or `#`) that open the definition file `spec`, if it is one.
fn notes(spec: &str) -> Option<String> {
    let path = std::path::Path::new(spec);
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > 1 << 20 {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let lines: Vec<&str> = text
        .lines()
        .map_while(|l| {
            let l = l.trim_start();
            l.strip_prefix("//").or_else(|| l.strip_prefix('#').filter(|_| !l.starts_with("#!")))
        })
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// A game thread's answer: a reply, or "this needs the search pool".
enum Answer {
    Reply(Reply),
    TooSlow,
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
        let mut how = How {
            options: Options { max_memory, progress: progress.clone(), ..Options::default() },
            database: if no_db { Database::Off } else { Database::SavedOrSearch },
            ..How::default()
        };
        let mut session = catalog.open(spec, &how)?;
        let mut misere = None;
        if uwapi::offers_misere(session.as_ref()) {
            // Two sessions of one game share its memory budget (and the request's clock).
            how.options.max_memory = max_memory / 2;
            session = catalog.open(spec, &how)?;
            misere = Some(catalog.open(spec, &How { misere: true, ..how })?);
        }
        Ok(Served { session, progress, deadline: None, notes: notes(spec), misere })
    }

    /// Name, kind, description, start position, players, a puzzle's words (its move's verb, its
    /// solved message).
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
            "move_verb": info.move_verb,
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

    /// Run `f` with a fresh time budget, ending by `deadline` at the latest (the request's);
    /// after a failure, forget the searches made.
    fn answer(&mut self, deadline: Option<Instant>, f: impl FnOnce(&mut Self) -> Result<Json, Reply>) -> Reply {
        self.progress.restart();
        let before = deadline.map(|at| self.progress.until(at));
        crate::progress::set_thread_deadline(self.progress.deadline());
        let out = f(self);
        crate::progress::set_thread_deadline(None);
        if let Some(before) = before {
            self.progress.restore(before);
        }
        match out {
            Ok(j) => (200, j),
            Err(e) => {
                self.session.reset();
                e
            }
        }
    }

    /// `job`'s answer, within `deadline` (the request's); a quick game thread's request that
    /// ran out of its own time needs a search.
    fn job(&mut self, job: &Job, deadline: Option<Instant>, quick: bool) -> Answer {
        self.deadline = deadline;
        let reply = match job {
            Job::Position { p, .. } => self.position(p.as_deref()),
            Job::Play { p, m, .. } => self.play(p.as_deref(), m),
            Job::Solution { p, .. } => self.solution(p.as_deref()),
            Job::Uwapi { game, route } => self.uwapi(game, route, !quick),
            Job::Games | Job::UwGames => (500, Json::Null),
        };
        self.deadline = None;
        let request_over = deadline.is_some_and(|at| Instant::now() >= at);
        if quick && reply.0 == 503 && self.progress.expired() && !request_over {
            Answer::TooSlow
        } else {
            Answer::Reply(reply)
        }
    }

    fn describe(&mut self, pos: &str) -> Result<Json, Reply> {
        let g = &mut self.session;
        // Every move's child is written out, and the board's clicks again: bound the reply
        // before any of it is made.
        let n = g.move_names(pos).map_err(game_error)?.len();
        let need = (2 * n + 1).saturating_mul(pos.len() + 128);
        if need > MAX_REPLY {
            return Err(error(
                413,
                format!(
                    "this position has {n} moves and {} bytes of text: its answer would be about {} MiB, more than \
                     the {} MiB served",
                    pos.len(),
                    need >> 20,
                    MAX_REPLY >> 20
                ),
            ));
        }
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
        self.answer(self.deadline, |s| {
            let pos = s.parse(text)?;
            s.describe(&pos)
        })
    }

    pub fn play(&mut self, text: Option<&str>, mv: &str) -> Reply {
        self.answer(self.deadline, |s| {
            let pos = s.parse(text)?;
            if s.session.primitive(&pos).map_err(game_error)?.is_some() {
                return Err(error(400, "the game is over here"));
            }
            let (_, child) = s.session.play(&pos, mv).map_err(game_error)?;
            Ok(json!({ "position": child }))
        })
    }

    pub fn solution(&mut self, text: Option<&str>) -> Reply {
        self.answer(self.deadline, |s| {
            let pos = s.parse(text)?;
            let r = s.session.solve(&pos).map_err(game_error)?;
            let moves: Vec<Json> =
                r.winning_moves.iter().map(|m| json!({"move": m.name, "position": m.position})).collect();
            Ok(json!({ "value": r.value.as_str(), "remoteness": r.remoteness, "moves": moves }))
        })
    }
}

/// What the HTTP side asks a game thread.
#[derive(Clone, Debug)]
enum Job {
    Games,
    Position { game: String, p: Option<String> },
    Play { game: String, p: Option<String>, m: String },
    Solution { game: String, p: Option<String> },
    UwGames,
    Uwapi { game: String, route: uwapi::Route },
}

impl Job {
    fn game(&self) -> Option<&str> {
        match self {
            Job::Games | Job::UwGames => None,
            Job::Position { game, .. }
            | Job::Play { game, .. }
            | Job::Solution { game, .. }
            | Job::Uwapi { game, .. } => Some(game),
        }
    }
}

/// How the server keeps to its budgets.
#[derive(Clone, Debug)]
pub struct Config {
    /// The most one request may search.
    pub time_limit: Duration,
    /// What a request may take on a quick game thread before it goes to the search pool.
    pub quick: Duration,
    /// Memory for each game's solver tables, all its copies together.
    pub max_memory: usize,
    /// Memory for the cache of answers already given (all games together; 0: none kept).
    pub cache_memory: usize,
    /// Quick game threads.
    pub workers: usize,
    /// Searches at once (game threads of the search pool); more are answered 503.
    pub searches: usize,
    /// Connections at once; more are closed as they come.
    pub max_connections: usize,
    /// A connection that has not sent a request's headers within this (or stays idle this
    /// long between requests) is closed.
    pub header_timeout: Duration,
    /// Read no saved database.
    pub no_db: bool,
}

impl Default for Config {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Config {
            time_limit: Duration::from_secs(10),
            quick: Duration::from_millis(200),
            max_memory: 512 << 20,
            cache_memory: (512 << 20) / 16,
            workers: cores.max(2),
            searches: cores.max(1),
            max_connections: 512,
            header_timeout: Duration::from_secs(10),
            no_db: false,
        }
    }
}

/// A job, the request's deadline (its arrival and the time limit), and where its answer goes.
type Asked = (Job, Instant, oneshot::Sender<Answer>);

type Queue = std::sync::Arc<std::sync::Mutex<mpsc::Receiver<Asked>>>;

/// Game threads that take jobs from one queue, each with its own copy of every game.
struct Pool {
    jobs: mpsc::Sender<Asked>,
    /// Jobs given and not yet answered.
    busy: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    /// The most jobs at once (beyond it: 503), or `usize::MAX` for a queue.
    bound: usize,
}

/// A game thread: open every game (from `catalog`), then answer jobs until the server stops.
fn game_thread(catalog: Catalog, games: Vec<(String, String)>, config: Config, quick: bool, queue: Queue) {
    // A long search must not starve the cheap requests of the cores: the search pool's
    // threads run at a lower priority (nice 10) than the quick pool and the HTTP runtime.
    #[cfg(target_os = "linux")]
    if !quick {
        // SAFETY: gettid and setpriority on the calling thread have no other effect.
        unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::setpriority(libc::PRIO_PROCESS, tid, 10);
        }
    }
    let copies = (config.workers + config.searches).max(1);
    let limit = if quick { config.quick.min(config.time_limit) } else { config.time_limit };
    let mut served: Vec<(String, Result<Served, String>)> = games
        .iter()
        .map(|(id, spec)| {
            let s = Served::open(&catalog, spec, limit, config.max_memory / copies, config.no_db);
            (id.clone(), s.map_err(|e| format!("{e:#}")))
        })
        .collect();
    loop {
        let next = queue.lock().map(|q| q.recv());
        let Ok(Ok((job, deadline, reply))) = next else { return };
        let answer = match job.game() {
            None if matches!(job, Job::UwGames) => {
                let mut list: Vec<Json> =
                    served.iter().filter_map(|(id, s)| Some(s.as_ref().ok()?.uw_entry(id))).collect();
                list.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
                Answer::Reply((200, Json::Array(list)))
            }
            None => {
                let list = served
                    .iter()
                    .filter_map(|(id, s)| {
                        let mut j = s.as_ref().ok()?.summary();
                        j["id"] = id.as_str().into();
                        Some(j)
                    })
                    .collect();
                Answer::Reply((200, Json::Array(list)))
            }
            Some(game) => match served.iter_mut().find(|(id, _)| id == game) {
                None => {
                    let names: Vec<&str> = served.iter().map(|(n, _)| n.as_str()).collect();
                    Answer::Reply(error(404, format!("no game {game:?} is served (there are: {})", names.join(", "))))
                }
                Some((_, Err(e))) => Answer::Reply(error(500, redact(e))),
                // Asked past its deadline (it waited in the queue): answered at once.
                Some(_) if Instant::now() >= deadline => Answer::Reply(error(
                    503,
                    "the request waited past this server's limit for one request before a game thread was free",
                )),
                Some((_, Ok(s))) => s.job(&job, Some(deadline), quick),
            },
        };
        let _ = reply.send(answer);
    }
}

impl Pool {
    fn start(
        n: usize,
        bound: usize,
        quick: bool,
        catalog: &Catalog,
        games: &[(String, String)],
        config: &Config,
    ) -> std::io::Result<Pool> {
        let (jobs, rx) = mpsc::channel();
        let queue: Queue = std::sync::Arc::new(std::sync::Mutex::new(rx));
        for i in 0..n.max(1) {
            let (catalog, games, config, queue) = (catalog.clone(), games.to_vec(), config.clone(), queue.clone());
            let name = format!("{}-{i}", if quick { "quick" } else { "search" });
            std::thread::Builder::new().name(name).spawn(move || game_thread(catalog, games, config, quick, queue))?;
        }
        Ok(Pool { jobs, busy: Default::default(), bound })
    }

    /// Ask for `job`'s answer, or `None` when the pool already has its bound of jobs.
    fn ask(&self, job: Job, deadline: Instant) -> Option<oneshot::Receiver<Answer>> {
        use std::sync::atomic::Ordering;
        if self.busy.fetch_add(1, Ordering::SeqCst) >= self.bound {
            self.busy.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        let (tx, rx) = oneshot::channel();
        let (done_tx, done_rx) = oneshot::channel();
        let busy = self.busy.clone();
        // The job counts as busy until the game thread answers (even if the client is gone).
        tokio::spawn(async move {
            let answer = rx.await;
            busy.fetch_sub(1, Ordering::SeqCst);
            if let Ok(a) = answer {
                let _ = done_tx.send(a);
            }
        });
        if self.jobs.send((job, deadline, tx)).is_err() {
            return None;
        }
        Some(done_rx)
    }
}

/// The server's state: its two pools, the answers kept, and its limits.
struct Pools {
    quick: Pool,
    search: Pool,
    cache: Cache,
    config: Config,
}

/// `body` as text, or a 413 where it is longer than [`MAX_REPLY`].
fn json_text(status: u16, body: &Json) -> (u16, String) {
    let text = body.to_string();
    if text.len() > MAX_REPLY {
        let (s, b) =
            error(413, format!("the answer is {} MiB, more than the {} MiB served", text.len() >> 20, MAX_REPLY >> 20));
        (s, b.to_string())
    } else {
        (status, text)
    }
}

fn text_response(status: u16, text: axum::body::Bytes) -> axum::response::Response {
    use axum::response::IntoResponse;
    let status = axum::http::StatusCode::from_u16(status).unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
    (status, [(axum::http::header::CONTENT_TYPE, "application/json")], text).into_response()
}

fn json_response(status: u16, body: Json) -> axum::response::Response {
    let (status, text) = json_text(status, &body);
    text_response(status, text.into())
}

/// The cache's key for `job`'s answer, if its answer is one to keep: a position's, a move's
/// (the others depend on more than the request, or are cheap).
fn cache_key(job: &Job) -> Option<String> {
    match job {
        Job::Position { game, p } => Some(format!("{:?}", ("position", game, p))),
        Job::Play { game, p, m } => Some(format!("{:?}", ("play", game, p, m))),
        _ => None,
    }
}

/// A game thread's reply, kept in the cache under `key` where it is a whole answer: 200, and
/// no remoteness left out (a search cut short by the time limit is not what a later
/// request with time to spare would be told).
fn answered(pools: &Pools, key: Option<&str>, status: u16, body: Json) -> axum::response::Response {
    let (status, text) = json_text(status, &body);
    let text = axum::body::Bytes::from(text);
    if let Some(key) = key
        && status == 200
        && body.get("remoteness_note").is_none_or(Json::is_null)
    {
        pools.cache.put(key, text.clone());
    }
    text_response(status, text)
}

fn busy(seconds: u64, why: &str) -> axum::response::Response {
    let mut r = json_response(503, json!({ "error": why }));
    r.headers_mut().insert(axum::http::header::RETRY_AFTER, seconds.into());
    r
}

/// Answer `job`: on the quick pool, then (if it needs more) on the search pool, within the
/// time limit and a tenth, both pools together: past it the answer is 503, even while a game
/// thread is still busy (a search that looks at its clock seldom ends later, unseen).
async fn ask(pools: &Pools, job: Job) -> axum::response::Response {
    let limit = pools.config.time_limit;
    let now = tokio::time::Instant::now();
    let deadline = now + limit + limit / 10;
    // The game threads stop the work by the limit itself: its answer (503, the game's own
    // message) comes before the reply above is due.
    let stop = now.into_std() + limit;
    let retry = limit.as_secs().max(1);
    let stopped = || json_response(500, json!({ "error": "a game thread stopped" }));
    let late =
        || busy(retry, &format!("the search did not end within this server's limit of {:.1} s", limit.as_secs_f64()));
    let key = cache_key(&job);
    if let Some(key) = &key
        && let Some(text) = pools.cache.get(key)
    {
        let mut r = text_response(200, text);
        r.headers_mut().insert("x-gamesman-cache", axum::http::HeaderValue::from_static("hit"));
        return r;
    }
    let Some(rx) = pools.quick.ask(job.clone(), stop) else { return stopped() };
    match tokio::time::timeout_at(deadline, rx).await {
        Ok(Ok(Answer::Reply((status, body)))) => return answered(pools, key.as_deref(), status, body),
        Ok(Ok(Answer::TooSlow)) => {}
        Ok(Err(_)) => return stopped(),
        Err(_) => return late(),
    }
    // A position of the Universal Web API is answered all the same, every value `unsolved`,
    // by a quick game thread that does not search: when every search slot is taken, and when
    // the search runs past the deadline. GamesmanUni shows such a position; a 503 it does not.
    let unsearched = |job: &Job| match job {
        Job::Uwapi { game, route: uwapi::Route::Position(v, p, true) } => {
            Some(Job::Uwapi { game: game.clone(), route: uwapi::Route::Position(v.clone(), p.clone(), false) })
        }
        _ => None,
    };
    let Some(rx) = pools.search.ask(job.clone(), stop) else {
        if let Some(job) = unsearched(&job) {
            return unsearched_answer(pools, job, late()).await;
        }
        return busy(
            retry,
            &format!("{} searches are running, the most this server runs at once: try again later", pools.search.bound),
        );
    };
    match tokio::time::timeout_at(deadline, rx).await {
        Ok(Ok(Answer::Reply((status, body)))) => answered(pools, key.as_deref(), status, body),
        Ok(Ok(Answer::TooSlow)) | Ok(Err(_)) => stopped(),
        Err(_) => match unsearched(&job) {
            Some(job) => unsearched_answer(pools, job, late()).await,
            None => late(),
        },
    }
}

/// `job` (a position asked without a search) answered by the quick pool, or `otherwise`.
async fn unsearched_answer(pools: &Pools, job: Job, otherwise: axum::response::Response) -> axum::response::Response {
    let limit = pools.config.time_limit;
    let Some(rx) = pools.quick.ask(job, std::time::Instant::now() + limit) else { return otherwise };
    match tokio::time::timeout(limit, rx).await {
        Ok(Ok(Answer::Reply((status, body)))) => json_response(status, body),
        _ => otherwise,
    }
}

/// Every error the server gives is JSON: `{"error": "..."}` (a rejection by the router, a
/// method not allowed, a path that is not UTF-8), and a request line too long is 414.
async fn json_errors(req: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    if req.uri().to_string().len() > MAX_URI {
        return json_response(
            414,
            json!({ "error": format!("the request line is longer than the {MAX_URI} bytes served") }),
        );
    }
    // hyper refuses (431) headers past its buffer only when they arrive in pieces; a head
    // read whole (it may be, up to the buffer's growth) is refused here the same way.
    let header_bytes: usize = req.headers().iter().map(|(k, v)| k.as_str().len() + v.len() + 4).sum();
    if header_bytes > MAX_HEADERS {
        return json_response(
            431,
            json!({ "error": format!("the request's headers are larger than the {MAX_HEADERS} bytes this server reads") }),
        );
    }
    let mut r = next.run(req).await;
    r.headers_mut().insert(axum::http::header::ACCESS_CONTROL_ALLOW_ORIGIN, axum::http::HeaderValue::from_static("*"));
    let is_json = r
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let status = r.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return r;
    }
    let text = axum::body::to_bytes(r.into_body(), 4096).await.unwrap_or_default();
    let why = String::from_utf8_lossy(&text).trim().to_string();
    let why = if why.is_empty() { status.canonical_reason().unwrap_or("error").to_string() } else { why };
    let why = match status.as_u16() {
        405 => "the API takes GET requests only".to_string(),
        _ => why,
    };
    let mut r = json_response(status.as_u16(), json!({ "error": why }));
    r.headers_mut().insert(axum::http::header::ACCESS_CONTROL_ALLOW_ORIGIN, axum::http::HeaderValue::from_static("*"));
    r
}

/// Serve `games` ((id, spec) pairs, opened from `catalog` on every game thread) on `addr`.
/// `ready` is told the address bound (with the port chosen, for port 0).
pub fn run(
    addr: std::net::SocketAddr,
    catalog: Catalog,
    games: Vec<(String, String)>,
    config: Config,
    ready: impl FnOnce(std::net::SocketAddr, &[String]),
) -> anyhow::Result<()> {
    use axum::extract::{Path, Query, State};
    use axum::routing::get;
    use std::sync::Arc;
    // A client that hangs up must not stop the server (a write to its socket would raise
    // SIGPIPE, whose default action ends the process).
    #[cfg(unix)]
    // SAFETY: SIG_IGN is a valid disposition; setting it has no other effect.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let names: Vec<String> = games.iter().map(|(n, _)| n.clone()).collect();
    let quick = Pool::start(config.workers, usize::MAX, true, &catalog, &games, &config)?;
    let search = Pool::start(config.searches, config.searches, false, &catalog, &games, &config)?;
    let pools = Arc::new(Pools { quick, search, cache: Cache::new(config.cache_memory), config: config.clone() });

    type Params = Query<HashMap<String, String>>;
    type St = State<Arc<Pools>>;
    let app = axum::Router::new()
        .route("/", get(|| async { axum::response::Html(PAGE) }))
        .route("/api/games", get(|State(p): St| async move { ask(&p, Job::Games).await }))
        .route(
            "/api/{game}/position",
            get(|State(j): St, Path(game): Path<String>, Query(q): Params| async move {
                ask(&j, Job::Position { game, p: q.get("p").cloned() }).await
            }),
        )
        .route(
            "/api/{game}/play",
            get(|State(j): St, Path(game): Path<String>, Query(q): Params| async move {
                match q.get("m") {
                    Some(m) => ask(&j, Job::Play { game, p: q.get("p").cloned(), m: m.clone() }).await,
                    None => json_response(400, json!({ "error": "say which move with ?m=" })),
                }
            }),
        )
        .route(
            "/api/{game}/solution",
            get(|State(j): St, Path(game): Path<String>, Query(q): Params| async move {
                ask(&j, Job::Solution { game, p: q.get("p").cloned() }).await
            }),
        )
        .route("/uwapi", get(|State(p): St| async move { ask(&p, Job::UwGames).await }))
        .route("/uwapi/", get(|State(p): St| async move { ask(&p, Job::UwGames).await }))
        .route(
            "/uwapi/{game}/",
            get(|State(j): St, Path(game): Path<String>| async move {
                ask(&j, Job::Uwapi { game: uwapi::served_id(&game), route: uwapi::Route::Game }).await
            }),
        )
        .route(
            "/uwapi/{game}/{variant}/",
            get(|State(j): St, Path((game, v)): Path<(String, String)>| async move {
                ask(&j, Job::Uwapi { game: uwapi::served_id(&game), route: uwapi::Route::Variant(v) }).await
            }),
        )
        .route(
            "/uwapi/{game}/{variant}/positions/",
            get(|State(j): St, Path((game, v)): Path<(String, String)>, Query(q): Params| async move {
                let route = uwapi::Route::Position(v, q.get("p").cloned(), true);
                ask(&j, Job::Uwapi { game: uwapi::served_id(&game), route }).await
            }),
        )
        .route(
            "/uwapi/{game}/{variant}/instructions/",
            get(|State(j): St, Path((game, v)): Path<(String, String)>| async move {
                ask(&j, Job::Uwapi { game: uwapi::served_id(&game), route: uwapi::Route::Instructions(v) }).await
            }),
        )
        .fallback(|| async {
            json_response(404, json!({ "error": "no such page: the page is /, the API /api/games and /api/{game}/…" }))
        })
        .layer(axum::middleware::from_fn(json_errors))
        .with_state(pools);

    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    rt.block_on(async move {
        let listener =
            tokio::net::TcpListener::bind(addr).await.map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
        ready(listener.local_addr()?, &names);
        let connections = Arc::new(tokio::sync::Semaphore::new(config.max_connections.max(1)));
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors, say: wait for connections to close.
                    eprintln!("gamesman: warning: cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            // Past the bound, a new connection is closed at once.
            let Ok(permit) = connections.clone().try_acquire_owned() else { continue };
            let service = hyper_util::service::TowerToHyperService::new(app.clone());
            let header_timeout = config.header_timeout;
            tokio::spawn(async move {
                let _permit = permit;
                let io = hyper_util::rt::TokioIo::new(http::JsonErrors::new(stream));
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(header_timeout)
                    .max_buf_size(MAX_URI + MAX_HEADERS)
                    .serve_connection(io, service)
                    .await;
            });
        }
    })
}

//! `gamesman play`: play a game in the terminal against people, a perfect player or a random
//! one, with hints, undo and a history that shows who made the mistake.
//!
//! Input is read a line at a time from stdin, so a game can be scripted (`printf '1:1\n' |
//! gamesman play ...`) and a puzzle solver's output can be piped in to check it. Prompts are
//! only shown when stdin is a terminal.

use super::args::GameArgs;
use crate::catalog::Session;
use crate::game::{GameError, Kind, Value};
use crate::solve::{MoveInfo, Options};
use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use std::io::{BufRead, IsTerminal, Read, Write};

/// Exit status when the game was stopped before its end (quit, end of input, --max-moves).
pub const STOPPED: i32 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Player {
    /// Moves typed on stdin
    Human,
    /// Wins as fast as it can; when losing, loses as slowly as it can
    Perfect,
    /// Any legal move, at random
    Random,
}

#[derive(Args)]
#[command(after_help = "During play, type a move, or:\n  \
    hint     every move with its value for you (win/lose/tie/draw in how many moves; Grundy value)\n  \
    undo     take back your last move (and the computer's reply)\n  \
    history  the moves so far, with the value after each: who made the mistake, and when\n  \
    moves    the legal moves\n  \
    quit     stop\n\
    Exit status: 0 when the game ends (a puzzle: solved), 1 on an error or an unsolved dead end, \
    2 when play stops first (quit, end of input, --max-moves).\n\n\
    Examples:\n  gamesman play nimrod 5,9\n  gamesman play tictactoe --x perfect --o perfect\n  \
    gamesman lightsout board.txt | gamesman play lightsout board.txt")]
pub struct PlayArgs {
    #[command(flatten)]
    g: GameArgs,
    /// The whole game's time limit (the time waiting for a move counts too)
    #[command(flatten)]
    limit: super::args::LimitArgs,
    /// Who plays the first player (X, or the first of the game's PLAYERS): X's turns when the
    /// game says whose turn it is (`to_move`), else the first move from the position given.
    /// A puzzle's one player
    #[arg(long = "x", value_enum, default_value_t = Player::Human, value_name = "PLAYER")]
    x: Player,
    /// Who plays the second player (O, or the second of the game's PLAYERS)
    #[arg(long = "o", value_enum, default_value_t = Player::Perfect, value_name = "PLAYER")]
    o: Player,
    /// Seed for the random player and for breaking ties between equally good moves
    #[arg(long)]
    seed: Option<u64>,
    /// Stop after this many moves (a loopy game can go on for ever)
    #[arg(long, default_value_t = 1000, value_name = "N")]
    max_moves: usize,
}

/// A value as seen by the player who can reach it, best first.
fn rank(v: Value) -> u8 {
    match v {
        Value::Win => 3,
        Value::Tie => 2,
        Value::Draw => 1,
        Value::Lose => 0,
    }
}

/// "win in 3", "lose in 4", "tie in 2", "draw": a position's value for the player to move.
fn outcome(v: Value, r: Option<u32>) -> String {
    match (v, r) {
        (Value::Draw, _) | (_, None) => v.to_string(),
        (_, Some(1)) => format!("{v} in 1 move"),
        (_, Some(r)) => format!("{v} in {r} moves"),
    }
}

/// A game being played.
struct Table {
    game: Box<dyn Session>,
    players: [Player; 2],
    /// Positions from the start; `moves[i]` leads from `positions[i]` to `positions[i + 1]`.
    positions: Vec<String>,
    moves: Vec<String>,
    rng: fastrand::Rng,
    interactive: bool,
    puzzle: bool,
}

impl Table {
    fn name(&self, side: usize) -> &str {
        if self.puzzle { "you" } else { self.game.info().player_name(side) }
    }

    /// Whose turn it is at `positions[i]`: 0 (the first player, or the one player of a
    /// puzzle) or 1. The game's `to_move` says, where it has one; otherwise the first player
    /// moves first from the position play started at, and players alternate.
    fn side_at(&self, i: usize) -> Result<usize> {
        if self.puzzle {
            return Ok(0);
        }
        Ok(match self.game.to_move(&self.positions[i])? {
            Some(side) => side,
            None => i % 2,
        })
    }

    /// Whose turn it is now.
    fn side(&self) -> Result<usize> {
        self.side_at(self.positions.len() - 1)
    }

    fn pos(&self) -> &str {
        self.positions.last().expect("the start position is always there")
    }

    /// The value of the game here if it is over: primitive, or no moves.
    fn over(&self) -> Result<Option<Value>> {
        Ok(self.game.ended(self.pos())?)
    }

    fn show(&self) -> Result<()> {
        println!("{}", self.game.show(self.pos())?.trim_end());
        Ok(())
    }

    fn announce_turn(&self) -> Result<()> {
        if !self.puzzle {
            let side = self.side()?;
            let who = format!("{:?}", self.players[side]).to_lowercase();
            println!("{} to move ({who})", self.name(side));
        }
        Ok(())
    }

    fn legal_names(&self) -> Result<Vec<String>> {
        Ok(self.game.move_names(self.pos())?)
    }

    /// The perfect player's move: the best value for the mover, then the fastest win (or
    /// slowest loss); equally good moves are chosen between at random.
    fn perfect_move(&mut self) -> Result<(String, String)> {
        let pos = self.pos().to_string();
        if self.puzzle {
            let report = self.game.solve(&pos)?;
            let Some(first) = report.winning_moves.first() else {
                bail!("the puzzle cannot be solved from here");
            };
            return Ok(self.game.play(&pos, &first.name)?);
        }
        let infos = self.game.moves(&pos)?;
        let key = |m: &MoveInfo| {
            let (v, r) = (m.mover, m.mover_remoteness());
            let r = r.unwrap_or(u32::MAX) as i64;
            // Win and tie: sooner is better. Lose: later is better. Draw: no remoteness.
            (rank(v), if v == Value::Lose { r } else { -r })
        };
        let best = infos.iter().map(key).max().expect("the game is not over, so there are moves");
        let candidates: Vec<usize> = (0..infos.len()).filter(|&i| key(&infos[i]) == best).collect();
        let pick = candidates[self.rng.usize(..candidates.len())];
        Ok(self.game.play_nth(&pos, pick)?)
    }

    fn random_move(&mut self) -> Result<(String, String)> {
        let n = self.game.move_names(self.pos())?.len();
        let i = self.rng.usize(..n);
        Ok(self.game.play_nth(self.pos(), i)?)
    }

    fn hint(&mut self) -> Result<()> {
        let pos = self.pos().to_string();
        if self.puzzle {
            // The solver's moves may be fewer than a person's (Lights Out presses in reading
            // order), so a puzzle's hint is a shortest solution from here.
            let report = self.game.solve(&pos)?;
            if report.value != Value::Win {
                println!("unsolvable from here");
            } else {
                let presses: Vec<&str> = report.winning_moves.iter().map(|m| m.name.as_str()).collect();
                let n = report.remoteness.map_or(String::new(), |r| format!(" in {r}"));
                println!("solvable{n}: {}", presses.join(" "));
            }
            return Ok(());
        }
        let infos = self.game.moves(&pos)?;
        let impartial = self.game.kind() == Kind::Impartial;
        println!("moves for {}:", self.name(self.side()?));
        let width = infos.iter().map(|m| m.name.chars().count()).max().unwrap_or(0).max(8);
        for m in &infos {
            let (v, r) = if self.puzzle {
                // A puzzle's child value is its own: solvable in r more moves.
                (m.value.name_in(Kind::Puzzle).to_string(), m.mover_remoteness())
            } else {
                (m.mover.to_string(), m.mover_remoteness())
            };
            let r = match r {
                Some(r) if v != "draw" && v != "unsolvable" => format!(" in {r}"),
                _ => String::new(),
            };
            let g = match (impartial, m.grundy) {
                (true, Some(g)) => format!(", leaves grundy {g}"),
                _ => String::new(),
            };
            println!("  {:<width$}  {v}{r}{g}", m.name);
        }
        Ok(())
    }

    fn history(&mut self) -> Result<()> {
        if self.moves.is_empty() {
            println!("no moves yet");
            return Ok(());
        }
        let start = self.positions[0].clone();
        let (v0, _) = self.game.value(&start)?;
        if self.puzzle {
            let v = v0.value.name_in(Kind::Puzzle);
            println!("start: {v}{}", v0.remoteness.map_or(String::new(), |r| format!(" in {r}")));
        } else {
            println!("start: {} to move, {}", self.name(self.side_at(0)?), outcome(v0.value, v0.remoteness));
        }
        for i in 0..self.moves.len() {
            let before = self.game.value(&self.positions[i].clone())?.0;
            let after = self.game.value(&self.positions[i + 1].clone())?.0;
            let mover = self.side_at(i)?;
            let next = self.side_at(i + 1)?;
            let line = if self.puzzle {
                let r = after.remoteness.map_or(String::new(), |r| format!(" in {r}"));
                let v = after.value.name_in(Kind::Puzzle);
                let worse = before.remoteness.zip(after.remoteness).is_some_and(|(b, a)| a >= b)
                    || (before.value == Value::Win && after.value != Value::Win);
                format!(
                    "{}. {}: {v}{r}{}",
                    i + 1,
                    self.moves[i],
                    if worse { "  <- not on a shortest solution" } else { "" }
                )
            } else {
                let got = after.value.flip();
                let mistake = rank(got) < rank(before.value);
                format!(
                    "{}. {} plays {}: {} to move, {}{}",
                    i + 1,
                    self.name(mover),
                    self.moves[i],
                    self.name(next),
                    outcome(after.value, after.remoteness),
                    if mistake {
                        format!("  <- a mistake by {}: it could {} instead", self.name(mover), could(before.value))
                    } else {
                        String::new()
                    }
                )
            };
            println!("{line}");
        }
        Ok(())
    }

    /// Take back the last move and, against a computer, its reply: back to the human's turn.
    fn undo(&mut self) -> Result<()> {
        if self.moves.is_empty() {
            println!("nothing to undo");
            return Ok(());
        }
        loop {
            self.moves.pop();
            self.positions.pop();
            if self.moves.is_empty() || self.players[self.side()?] == Player::Human {
                return Ok(());
            }
        }
    }

    fn play(&mut self, (name, next): (String, String)) -> Result<()> {
        if self.puzzle {
            let verb = self.game.info().move_verb.as_deref().unwrap_or("Move");
            println!("{verb} {name}");
        } else {
            println!("{} plays {name}", self.name(self.side()?));
        }
        self.positions.push(next);
        self.moves.push(name);
        Ok(())
    }
}

fn could(v: Value) -> &'static str {
    match v {
        Value::Win => "have won",
        Value::Tie => "have tied",
        Value::Draw => "have drawn",
        Value::Lose => "not lose",
    }
}

enum Input {
    Line(String),
    End,
}

fn read_line(stdin: &mut impl BufRead, prompt: Option<&str>) -> Result<Input> {
    if let Some(p) = prompt {
        print!("{p}");
        std::io::stdout().flush()?;
    }
    // A line is a move or a command: one longer than [`MAX_LINE`] is refused, not read whole.
    let mut line = String::new();
    let limit = crate::input::MAX_LINE;
    if stdin.take(limit as u64 + 1).read_line(&mut line)? == 0 {
        return Ok(Input::End);
    }
    if line.len() > limit {
        anyhow::bail!(
            "a line of more than {} (starting {}): a move or a command is one short line",
            crate::input::size(limit),
            crate::input::quote(&line)
        );
    }
    Ok(Input::Line(line.trim().to_string()))
}

/// `gamesman play`.
pub fn run(args: &PlayArgs) -> Result<i32> {
    args.run()
}

impl PlayArgs {
    fn run(&self) -> Result<i32> {
        let game = self.g.open(Options { progress: self.limit.start(), ..Options::default() })?;
        let start = self.g.position(&*game, "play")?;
        let puzzle = game.kind() == Kind::Puzzle;
        let rng = self.seed.map_or_else(fastrand::Rng::new, fastrand::Rng::with_seed);
        let interactive = std::io::stdin().is_terminal();
        let mut s = Table {
            game,
            players: [self.x, self.o],
            positions: vec![start],
            moves: Vec::new(),
            rng,
            interactive,
            puzzle,
        };
        let stdin = std::io::stdin();
        let mut stdin = stdin.lock();
        s.show()?;
        loop {
            if let Some(v) = s.over()? {
                return finish(&s, v);
            }
            if s.moves.len() >= self.max_moves {
                println!("stopped after {} moves (--max-moves)", s.moves.len());
                return Ok(STOPPED);
            }
            s.announce_turn()?;
            let side = s.side()?;
            let mv = match s.players[side] {
                Player::Perfect => s.perfect_move()?,
                Player::Random => s.random_move()?,
                Player::Human => {
                    let prompt = format!("{}> ", if puzzle { "move" } else { s.name(side) });
                    let line = match read_line(&mut stdin, s.interactive.then_some(prompt.as_str()))? {
                        Input::End => {
                            if s.interactive {
                                println!();
                            }
                            return Ok(STOPPED);
                        }
                        Input::Line(l) => l,
                    };
                    match line.to_ascii_lowercase().as_str() {
                        "" => continue,
                        "quit" | "exit" | "q" => return Ok(STOPPED),
                        "hint" | "?" => {
                            s.hint()?;
                            continue;
                        }
                        "history" => {
                            s.history()?;
                            continue;
                        }
                        "moves" => {
                            println!("legal moves: {}", s.legal_names()?.join(", "));
                            continue;
                        }
                        "undo" => {
                            s.undo()?;
                            s.show()?;
                            continue;
                        }
                        _ => {}
                    }
                    match s.game.play(s.pos(), &line) {
                        Ok(mv) => mv,
                        Err(GameError::BadMove(why)) => {
                            eprintln!("{why}");
                            eprintln!("(type a move, or hint, undo, history, moves, quit)");
                            continue;
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
            };
            s.play(mv)?;
            s.show()?;
        }
    }
}

/// Announce the end. Returns the exit status.
fn finish(s: &Table, v: Value) -> Result<i32> {
    if s.puzzle {
        if v == Value::Win {
            println!("{}", s.game.info().solved_message.as_deref().unwrap_or("Solved!"));
            return Ok(0);
        }
        println!("No moves left, and the puzzle is not solved.");
        return Ok(1);
    }
    let side = s.side()?;
    match v {
        Value::Win => println!("{} wins!", s.name(side)),
        Value::Lose => println!("{} wins!", s.name(1 - side)),
        _ => println!("It is a tie."),
    }
    Ok(0)
}

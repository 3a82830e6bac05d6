//! What a [`Live`] session answers by solving.

use super::live::Live;
use super::session::*;
use crate::game::{Board, Game, GameError, GameExt, GameResult, Value};
use crate::solve::{MoveInfo, Report, Solution, consistency, mover_value, strategy};

impl<G: Game> SessionAnswers for Live<G> {
    fn solve(&mut self, text: &str) -> GameResult<Report> {
        self.attach()?;
        let pos = self.parse(text)?;
        let (mut report, by_tiers) = self.or_by_tiers(&pos, |a| a.solve(&pos))?;
        if by_tiers {
            report.source = "tiers";
        }
        Ok(report)
    }

    fn value(&mut self, text: &str) -> GameResult<(Solution, Option<u64>)> {
        self.attach()?;
        let pos = self.parse(text)?;
        Ok(self.or_by_tiers(&pos, |a| a.value(&pos))?.0)
    }

    fn source(&mut self, text: &str) -> GameResult<&'static str> {
        self.attach()?;
        let pos = self.parse(text)?;
        Ok(if self.a.saved(&pos)?.is_some() { "database" } else { "search" })
    }

    fn moves(&mut self, text: &str) -> GameResult<Vec<MoveInfo>> {
        self.attach()?;
        let pos = self.parse(text)?;
        Ok(self.or_by_tiers(&pos, |a| a.moves(&pos))?.0)
    }

    fn move_values(&mut self, text: &str, each: &mut dyn FnMut(&MoveInfo, bool)) -> GameResult<Vec<MoveInfo>> {
        self.attach()?;
        let pos = self.parse(text)?;
        Ok(self.or_by_tiers(&pos, |a| a.move_values(&pos, &mut *each))?.0)
    }

    fn fill_remoteness(&mut self, list: &mut [MoveInfo]) -> GameResult<()> {
        self.a.fill_remoteness(list)
    }

    fn remoteness_pending(&self) -> bool {
        self.a.remoteness_pending()
    }

    fn grundy(&mut self, text: &str) -> GameResult<Option<u64>> {
        let pos = self.parse(text)?;
        if let Some(sc) = self.game().shortcut_value(&pos)?
            && sc.grundy.is_some()
        {
            return Ok(sc.grundy);
        }
        self.a.grundy(&pos)
    }

    fn grundy_moves(&mut self, text: &str) -> GameResult<Vec<MoveInfo>> {
        let mut out = Vec::new();
        for (name, child) in self.children(text)? {
            let grundy = self.grundy(&child)?;
            let value = if grundy == Some(0) { Value::Lose } else { Value::Win };
            out.push(MoveInfo { name, position: child, value, remoteness: None, grundy, mover: value.flip() });
        }
        Ok(out)
    }

    fn board(&mut self, text: &str) -> GameResult<Option<BoardView>> {
        self.attach()?;
        let pos = self.parse(text)?;
        let Some(Board { rows, cols, cells, clicks }) = self.game().board(&pos)? else { return Ok(None) };
        let over = self.game().primitive(&pos)?.is_some();
        let here = self.a.here(&pos)?;
        let kind = self.game().kind();
        let mut out = Vec::with_capacity(cells.len());
        for (cell, click) in cells.into_iter().zip(clicks) {
            let mut c = Cell { text: cell, click: None };
            if let (false, Some(click)) = (over, click) {
                match self.game().parse_move(&pos, &click) {
                    Ok(mv) => {
                        let mut m = self.move_info(&pos, &mv, here)?;
                        m.mover = mover_value(kind, here, m.value, m.remoteness);
                        m.name = click;
                        c.click = Some(m);
                    }
                    Err(GameError::BadMove(_)) => {}
                    Err(e) => return Err(e),
                }
            }
            out.push(c);
        }
        Ok(Some(BoardView { rows, cols, cells: out }))
    }

    fn visited(&self) -> u64 {
        self.a.visited()
    }

    fn remoteness_note(&self) -> Option<String> {
        self.a.remoteness_note().map(str::to_string)
    }

    fn reset(&mut self) {
        self.a.reset();
    }

    fn strategy(&mut self, text: &str, max_nodes: usize) -> GameResult<Vec<strategy::Node>> {
        self.attach()?;
        let pos = self.parse(text)?;
        strategy::tree(&mut self.a, &pos, max_nodes)
    }

    fn self_check(&mut self, positions: &[String]) -> GameResult<Option<String>> {
        let positions: Vec<G::Pos> = positions.iter().map(|t| self.parse(t)).collect::<GameResult<_>>()?;
        consistency::self_check(&mut self.a, &positions)
    }
}

//! The record keeping of one game while the referee plays it: the book
//! moves, then each engine's moves with their scores, depths and times (a
//! step that closed a mill joined to the removal that completes its
//! turn), the engines' error lines and overruns, and at the end the
//! termination, all made into a [`GameRecord`].

use std::time::{Duration, Instant, SystemTime};

use super::record::{GameJob, GameRecord, MoveRecord, Overruns, Termination, Thinking};
use crate::core::{Color, Move};
use crate::matches::engine::dialect::EngineScore;

/// How many engine error lines a game record keeps.
const MAX_COMPLAINTS: usize = 20;

/// What an engine reported about the search behind a move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Search {
    pub depth: Option<u32>,
    pub score: Option<EngineScore>,
}

/// One game's record while it is being played.
pub struct GameRecorder {
    job: GameJob,
    started: SystemTime,
    clock_start: Instant,
    /// Whole turns: the book's, then the engines'.
    moves: Vec<MoveRecord>,
    complaints: Vec<String>,
    /// Moves past their movetime, by colour.
    overruns: [Overruns; 2],
    /// The engines' whole turns and their time, by colour (a
    /// half-played step counts only once its removal comes, as in
    /// `moves`).
    thinking: [Thinking; 2],
    /// A step that closed a mill, played without its removal (Sanmill's
    /// atomic moves, or any engine that answers so): the turn so far,
    /// with the time and search data of its parts.
    partial: Option<MoveRecord>,
    /// What the databases give the position after the opening.
    opening_value: Option<&'static str>,
}

impl GameRecorder {
    /// Starts the record of `job` (and its clock) with the opening's
    /// moves as book moves.
    pub fn new(job: &GameJob) -> GameRecorder {
        let moves = job
            .opening
            .moves
            .iter()
            .map(|&mv| MoveRecord {
                mv,
                book: true,
                score: None,
                depth: None,
                time: Duration::ZERO,
            })
            .collect();
        GameRecorder {
            job: job.clone(),
            started: SystemTime::now(),
            clock_start: Instant::now(),
            moves,
            complaints: Vec::new(),
            overruns: [Overruns::default(); 2],
            thinking: [Thinking::default(); 2],
            opening_value: None,
            partial: None,
        }
    }

    /// Keeps an engine's error lines (at most [`MAX_COMPLAINTS`] a game).
    pub fn note(&mut self, side: Color, lines: Vec<String>) {
        for line in lines {
            if self.complaints.len() < MAX_COMPLAINTS {
                self.complaints.push(format!("{side}: {line}"));
            }
        }
    }

    /// Counts a move of `side` that took `time`, past its movetime.
    pub fn overrun(&mut self, side: Color, time: Duration) {
        self.overruns[side.index()].add(time);
    }

    /// Whole turns played so far, the book's included.
    pub fn turns(&self) -> usize {
        self.moves.len()
    }

    /// The moves an engine is sent: the whole turns, then the step
    /// still owing its removal, if any.
    pub fn moves_so_far(&self) -> Vec<Move> {
        let mut moves: Vec<Move> = self.moves.iter().map(|m| m.mv).collect();
        moves.extend(self.partial.as_ref().map(|p| p.mv));
        moves
    }

    /// Records `side`'s move, which took `time`: joined to the step
    /// whose removal it pays for, if one is waiting. `owes_removal`: the
    /// move is a step whose removal its side still owes, half a turn
    /// kept until the removal comes.
    pub fn add_move(
        &mut self,
        side: Color,
        mv: Move,
        search: Search,
        time: Duration,
        owes_removal: bool,
    ) {
        let turn = match self.partial.take() {
            Some(step) => MoveRecord {
                mv: mv.removals().fold(step.mv, Move::with_removal),
                book: false,
                score: search.score.or(step.score),
                depth: search.depth.or(step.depth),
                time: step.time + time,
            },
            None => MoveRecord {
                mv,
                book: false,
                score: search.score,
                depth: search.depth,
                time,
            },
        };
        if owes_removal {
            self.partial = Some(turn);
        } else {
            // The whole turn's time, its step's included, as recorded.
            self.thinking[side.index()] += Thinking {
                turns: 1,
                time: turn.time,
            };
            self.moves.push(turn);
        }
    }

    /// Records what the databases give the position after the opening.
    pub fn set_opening_value(&mut self, value: Option<&'static str>) {
        self.opening_value = value;
    }

    /// The finished game, ended by `termination` for the reason `detail`
    /// (a half-played step is left out).
    pub fn finish(self, termination: Termination, detail: String) -> GameRecord {
        GameRecord {
            job: self.job,
            moves: self.moves,
            complaints: self.complaints,
            overruns: self.overruns,
            thinking: self.thinking,
            termination,
            detail,
            opening_value: self.opening_value,
            started: self.started,
            duration: self.clock_start.elapsed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::core::Rules;
    use crate::matches::openings::Opening;

    fn mv(text: &str) -> Move {
        text.parse().expect("a move")
    }

    #[test]
    fn a_step_and_its_removal_are_one_turn() {
        let mut opening = Opening::startpos(&Rules::default());
        opening.moves.push(mv("d6"));
        let job = GameJob {
            index: 0,
            pairing: 0,
            pair: 0,
            white: 0,
            black: 1,
            opening: Arc::new(opening),
        };
        let mut recorder = GameRecorder::new(&job);
        let ms = Duration::from_millis;
        let step = Search {
            depth: Some(3),
            score: Some(EngineScore::Cp(10)),
        };
        recorder.add_move(Color::Black, mv("a4-b4"), step, ms(5), true);
        assert_eq!(recorder.turns(), 1);
        assert_eq!(recorder.moves_so_far(), [mv("d6"), mv("a4-b4")]);
        let removal = Search {
            depth: None,
            score: Some(EngineScore::Cp(20)),
        };
        recorder.add_move(Color::Black, mv("xd2"), removal, ms(2), false);
        recorder.overrun(Color::Black, ms(70));
        recorder.note(Color::White, vec!["error one".into()]);
        let record = recorder.finish(Termination::MaxMoves, "draw".into());
        assert_eq!(record.moves.len(), 2);
        assert!(record.moves[0].book);
        let turn = &record.moves[1];
        assert_eq!((turn.mv, turn.book), (mv("a4-b4xd2"), false));
        assert_eq!(
            (turn.depth, turn.score),
            (Some(3), Some(EngineScore::Cp(20)))
        );
        assert_eq!(turn.time, ms(7));
        assert_eq!(record.overruns[1].moves, 1);
        let black = Thinking {
            turns: 1,
            time: ms(7),
        };
        assert_eq!(record.thinking, [Thinking::default(), black]);
        assert_eq!(black.mean(), Some(ms(7)));
        assert_eq!(Thinking::default().mean(), None);
        assert_eq!(record.complaints, ["white: error one"]);
    }
}

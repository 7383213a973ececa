//! One game replayed under the rules it was played by (its `Variant`,
//! `Rules` and `FEN` tags), each ply judged by the databases' root probe
//! (`tb::root`, the one the engine uses): the mover's value before the
//! move and after it, under the N-move rules from the position's counter
//! and with the game's own history for repetitions.

use crate::core::options::BadValue;
use crate::core::pgn::PgnGame;
use crate::core::{
    Color, FenError, Game, Move, MoveParseError, Outcome, PlayError, Position, RuleOption, Rules,
    UnknownVariant, Variant,
};
use crate::tb::Wdl;
use crate::tb::probe::Tablebases;
use crate::tb::root::{RootProbe, probe_root};

/// Why a game cannot be judged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameProblem {
    #[error("tag Variant: {0}")]
    Variant(#[from] UnknownVariant),
    #[error("tag Rules: `{0}` is not NAME=VALUE")]
    RuleShape(String),
    #[error("tag Rules: unknown rule `{0}`")]
    UnknownRule(String),
    #[error("tag Rules: {option}: {error}")]
    RuleValue {
        option: &'static str,
        error: BadValue,
    },
    #[error("tag FEN: {0}")]
    Fen(#[from] FenError),
    #[error("ply {ply} `{text}` is not a move: {source}")]
    BadMove {
        ply: usize,
        text: String,
        source: MoveParseError,
    },
    #[error("ply {ply} `{text}` is illegal: {source}")]
    Illegal {
        ply: usize,
        text: String,
        source: PlayError,
    },
    #[error("the databases cannot judge its rules: {0}")]
    NoTables(String),
}

/// The phase of the side that moves: placing while it has pieces in hand,
/// flying when the rules let its pieces fly, moving otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Placing,
    Moving,
    Flying,
}

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Placing, Phase::Moving, Phase::Flying];

    pub fn name(self) -> &'static str {
        match self {
            Phase::Placing => "placing",
            Phase::Moving => "moving",
            Phase::Flying => "flying",
        }
    }

    fn of(pos: &Position, rules: &Rules) -> Phase {
        let mover = pos.side_to_move();
        if pos.in_hand(mover) > 0 {
            Phase::Placing
        } else if pos.can_fly(rules, mover) {
            Phase::Flying
        } else {
            Phase::Moving
        }
    }
}

/// One ply as the databases judge it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ply {
    /// From 1, the game's first move.
    pub ply: usize,
    pub color: Color,
    pub phase: Phase,
    pub mv: Move,
    /// A move of the opening (`{book}` in the PGN): counted apart.
    pub book: bool,
    /// The mover's value before and after the move (`None`: the
    /// databases do not say).
    pub before: Option<Wdl>,
    pub after: Option<Wdl>,
    /// Where the move lost value: the moves that would have kept it, best
    /// first.
    pub keeping: Vec<Move>,
}

impl Ply {
    /// Whether the move turned a win into a draw or loss, or a draw into
    /// a loss (book moves are not judged).
    pub fn is_error(&self) -> bool {
        !self.book && matches!((self.before, self.after), (Some(b), Some(a)) if a < b)
    }

    /// Whether the move is judged at all: not from the book, both values
    /// known.
    pub fn is_judged(&self) -> bool {
        !self.book && self.before.is_some() && self.after.is_some()
    }
}

/// The rules a game was played by: its `Variant` tag (Nine Men's Morris
/// without one), then the `NAME=VALUE` overrides of its `Rules` tag.
pub fn rules_of(game: &PgnGame) -> Result<Rules, GameProblem> {
    let variant: Variant = game.tag("Variant").unwrap_or("nine").parse()?;
    let mut rules = variant.rules();
    for word in game.tag("Rules").unwrap_or("").split_whitespace() {
        let (name, value) = word
            .split_once('=')
            .ok_or_else(|| GameProblem::RuleShape(word.to_string()))?;
        let option = RuleOption::from_name(name)
            .ok_or_else(|| GameProblem::UnknownRule(name.to_string()))?;
        option
            .set(&mut rules, value)
            .map_err(|error| GameProblem::RuleValue {
                option: option.name(),
                error,
            })?;
    }
    Ok(rules)
}

/// The game's start: its `FEN` tag, else the start position.
pub fn start_of(game: &PgnGame, rules: &Rules) -> Result<Position, GameProblem> {
    Ok(match game.tag("FEN") {
        Some(fen) => Position::from_fen(fen, rules)?,
        None => Position::startpos(rules),
    })
}

/// Every ply of `game` judged by `tables` (opened for `rules`).
pub fn judge_game(
    game: &PgnGame,
    rules: &Rules,
    tables: &Tablebases,
) -> Result<Vec<Ply>, GameProblem> {
    let mut replay = Game::from_position(*rules, start_of(game, rules)?);
    let mut plies = Vec::with_capacity(game.moves.len());
    for (i, pgn_move) in game.moves.iter().enumerate() {
        let ply = i + 1;
        let text = &pgn_move.text;
        let parsed: Move = text.parse().map_err(|source| GameProblem::BadMove {
            ply,
            text: text.clone(),
            source,
        })?;
        let pos = *replay.position();
        let mv = pos.find_legal(rules, parsed).unwrap_or(parsed);
        let probe = tables.fetching(|| probe_root(tables, rules, &pos));
        let before = value_before(&probe);
        let after = value_after(&replay, &probe, mv);
        let keeping = match (before, after) {
            (Some(b), Some(a)) if a < b => keeping_moves(&replay, &probe, b),
            _ => Vec::new(),
        };
        plies.push(Ply {
            ply,
            color: pos.side_to_move(),
            phase: Phase::of(&pos, rules),
            mv,
            book: pgn_move.comments.first().is_some_and(|c| c == "book"),
            before,
            after,
            keeping,
        });
        replay.play(mv).map_err(|source| GameProblem::Illegal {
            ply,
            text: text.clone(),
            source,
        })?;
    }
    Ok(plies)
}

/// The mover's value at the root: the databases' under the N-move rules,
/// or, where they do not hold the root but hold every move's position
/// (the last placement, a removal owed), the best of its moves'.
fn value_before(probe: &RootProbe) -> Option<Wdl> {
    if let Some(v) = probe.value {
        return v.rule;
    }
    if probe.moves.is_empty() || !probe.complete() {
        return None;
    }
    probe
        .moves
        .iter()
        .map(|(_, v)| v.and_then(|v| v.rule))
        .collect::<Option<Vec<Wdl>>>()?
        .into_iter()
        .max()
}

/// The mover's value after `mv`: the game's end if it ends there (a
/// repetition or the N-move rule draws, whatever the databases say),
/// else the databases' value of the move.
fn value_after(game: &Game, probe: &RootProbe, mv: Move) -> Option<Wdl> {
    let mover = game.position().side_to_move();
    let mut next = game.clone();
    next.play(mv).ok()?;
    match next.outcome() {
        Some(Outcome::Win { winner, .. }) => {
            Some(if winner == mover { Wdl::Win } else { Wdl::Loss })
        }
        Some(Outcome::Draw(_)) => Some(Wdl::Draw),
        None => probe
            .moves
            .iter()
            .find(|(m, _)| *m == mv)
            .and_then(|(_, v)| v.and_then(|v| v.rule)),
    }
}

/// The moves that keep the value `value`, best first.
fn keeping_moves(game: &Game, probe: &RootProbe, value: Wdl) -> Vec<Move> {
    probe
        .moves
        .iter()
        .map(|&(m, _)| m)
        .filter(|&m| value_after(game, probe, m) == Some(value))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tb::TbValue;

    const WIN: TbValue = TbValue {
        rule: Some(Wdl::Win),
        pure: Some(Wdl::Win),
        to_end: None,
        to_removal: None,
    };

    /// A move that repeats a position for the third time draws, whatever
    /// the databases (which know no history) say of the position it
    /// reaches; another move keeps their value.
    #[test]
    fn a_third_repetition_draws_a_databases_win() {
        let rules = Rules::default();
        let start = "********/********/******** w p p 0 4 0 4 0 0 0 0 0 0 0 0 6";
        let start = Position::from_fen(start, &rules).unwrap();
        let mut moves = vec!["a1", "b2", "g1", "f2", "a7", "b6", "g7", "f6"];
        for _ in 0..2 {
            moves.extend(["a1-a4", "b2-b4", "a4-a1", "b4-b2"]);
        }
        let (last, before) = moves.split_last().unwrap();
        let game = Game::from_moves(rules, start, before.iter().copied()).unwrap();
        let last: Move = last.parse().unwrap();
        let other: Move = "b4-c4".parse().unwrap();
        let probe = RootProbe {
            value: Some(WIN),
            moves: vec![(last, Some(WIN)), (other, Some(WIN))],
            in_time: false,
        };
        assert_eq!(value_after(&game, &probe, last), Some(Wdl::Draw));
        assert_eq!(value_after(&game, &probe, other), Some(Wdl::Win));
        assert_eq!(keeping_moves(&game, &probe, Wdl::Win), [other]);
        assert_eq!(value_before(&probe), Some(Wdl::Win));
    }

    #[test]
    fn the_rules_come_from_the_tags() {
        let game = |tags: &[(&str, &str)]| PgnGame {
            tags: tags
                .iter()
                .map(|&(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            ..PgnGame::default()
        };
        assert_eq!(rules_of(&game(&[])), Ok(Rules::default()));
        let twelve = rules_of(&game(&[("Variant", "twelve")])).unwrap();
        assert_eq!(twelve, Variant::Twelve.rules());
        let ruled = rules_of(&game(&[("Rules", "NMoveRule=50 Flying=false")])).unwrap();
        assert_eq!((ruled.n_move_rule, ruled.flying), (50, false));
        assert!(matches!(
            rules_of(&game(&[("Rules", "Nonsense=1")])),
            Err(GameProblem::UnknownRule(_))
        ));
        assert!(matches!(
            rules_of(&game(&[("Rules", "NMoveRule=abc")])),
            Err(GameProblem::RuleValue {
                option: "NMoveRule",
                ..
            })
        ));
    }
}

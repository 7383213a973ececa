//! The generator: seeded random openings, kept when the databases value
//! them a draw (every move chosen among those that keep the draw) or when
//! a search scores them near 0 from both sides, and, where asked, when
//! self-play games from them end level (as many won by White as by
//! Black); each position once, its transpositions and symmetric copies
//! counted with it.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use crate::core::{
    Color, Game, Move, MoveList, Outcome, Position, Rules, Variant, game::GameError,
};
use crate::engine::{Engine, EngineError};
use crate::matches::openings::Opening;
use crate::random::SeededRng;
use crate::search::Limits;
use crate::tb::probe::Tablebases;
use crate::tb::root::probe_root;
use crate::tb::{Wdl, symmetry};

/// The table size of every search, in MB (cleared before each one, so a
/// score depends on the position alone).
pub const HASH_MB: usize = 16;

/// How an opening is valued.
pub enum Method {
    /// Kept when a search of `depth` scores the position within
    /// `threshold` centipawns of 0 for the side to move, and the position
    /// after the move it chose within `threshold` for the other side.
    Search { depth: u32, threshold: i32 },
    /// Every move among those the databases say keep the draw.
    Tablebases(Arc<Tablebases>),
}

/// The self-play check: `games` games of the engine against itself from
/// the opening, game `i` (from 0) at `nodes * (i + 2) / 2` nodes a move
/// (so that the games differ), one thread, the table kept through a game.
/// The opening is kept when as many games are won by White as by Black.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Check {
    pub nodes: u64,
    pub games: u32,
}

/// A self-play game longer than this many turns counts as a draw (the
/// N-move rules end games long before it in every rule set).
pub const CHECK_MAX_TURNS: usize = 1000;

/// What a book is made of.
pub struct BookSpec {
    pub variant: Variant,
    pub start: Position,
    /// The start's FEN when it is not the rules' start position.
    pub start_fen: Option<String>,
    /// Whole turns from the start.
    pub plies: u32,
    pub count: usize,
    pub seed: u64,
    /// Candidates drawn before giving up.
    pub max_tries: u64,
    pub method: Method,
    /// Self-play games each opening must end level, if any.
    pub check: Option<Check>,
}

/// One opening of a book, with its value and how it was established.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub opening: Opening,
    /// The FEN of the position its moves reach.
    pub fen: String,
    /// `draw` (databases) or `even` (search).
    pub value: String,
    /// `tb`, or `search depth D scores W1 W2` (White's view, centipawns).
    pub by: String,
    /// The self-play check's games, if one was asked for:
    /// `self-play nodes N1 N2 ...: R1 R2 ...` (each result `1-0`, `0-1`
    /// or `1/2-1/2`, White's first).
    pub check: Option<String>,
}

impl Entry {
    /// The book line (docs/books.md).
    pub fn line(&self) -> String {
        let mut line = format!(
            "{}; fen {}; value {}; by {}",
            self.opening.line(),
            self.fen,
            self.value,
            self.by
        );
        if let Some(check) = &self.check {
            line.push_str("; check ");
            line.push_str(check);
        }
        line
    }
}

/// How far a generation has come.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Candidates drawn.
    pub tried: u64,
    /// Openings kept.
    pub kept: usize,
    /// Candidates whose position (or a symmetric copy) came before.
    pub repeated: u64,
    /// Candidates that ended the game or found no move to keep the value.
    pub dead: u64,
    /// Candidates the value test threw away.
    pub refused: u64,
    /// Candidates that passed the value test but whose self-play games
    /// one colour won more of.
    pub unlevel: u64,
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} kept of {} tried ({} repeated, {} refused, {} not level in self-play, {} dead ends)",
            self.kept, self.tried, self.repeated, self.refused, self.unlevel, self.dead
        )
    }
}

/// Why no book was made.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("the databases do not value the start position a draw ({0})")]
    StartNotDrawn(String),
}

/// A position's identity up to the 16 board symmetries: the smallest image
/// of its point sets, and every other FEN field but the move number.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Canonical([u32; 5], Vec<String>);

/// The key under which `pos` and its symmetric copies count as one.
pub fn canonical(pos: &Position, rules: &Rules) -> Canonical {
    let sets = [
        pos.pieces(Color::White),
        pos.pieces(Color::Black),
        pos.marked(),
        pos.formed_mills(Color::White),
        pos.formed_mills(Color::Black),
    ];
    let least = (0..symmetry::COUNT)
        .map(|s| sets.map(|b| symmetry::apply(s, b).0))
        .min()
        .unwrap_or([0; 5]);
    // Fields 1..=15 but 14 (the formed mills, in `least`); 16 is the
    // move number, the same for every line of a book of one length.
    let rest = pos
        .fen(rules)
        .split_whitespace()
        .enumerate()
        .filter(|&(i, _)| i != 0 && i != 14 && i != 16)
        .map(|(_, f)| f.to_string())
        .collect();
    Canonical(least, rest)
}

/// Makes the book, calling `progress` after every candidate.
pub fn generate(
    spec: &BookSpec,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Vec<Entry>, BookError> {
    let rules = spec.variant.rules();
    let mut rng = SeededRng::new(spec.seed);
    let mut seen: HashSet<Canonical> = HashSet::new();
    let mut book = Vec::new();
    let mut p = Progress::default();
    let mut engine = None;
    if matches!(spec.method, Method::Search { .. }) || spec.check.is_some() {
        let mut e = Engine::new();
        e.set_option("Variant", Some(spec.variant.name()))?;
        e.set_option("Hash", Some(&HASH_MB.to_string()))?;
        engine = Some(e);
    }
    if let Method::Tablebases(tables) = &spec.method {
        let value = tables.value(&spec.start).and_then(|v| v.rule);
        if value != Some(Wdl::Draw) {
            return Err(BookError::StartNotDrawn(match value {
                Some(v) => format!("{v:?}"),
                None => "not held".into(),
            }));
        }
    }
    while book.len() < spec.count && p.tried < spec.max_tries {
        p.tried += 1;
        let game = match &spec.method {
            Method::Search { .. } => random_line(spec, &rules, &mut rng, None),
            Method::Tablebases(t) => random_line(spec, &rules, &mut rng, Some(t)),
        };
        let Some(game) = game else {
            p.dead += 1;
            progress(&p);
            continue;
        };
        if !seen.insert(canonical(game.position(), &rules)) {
            p.repeated += 1;
            progress(&p);
            continue;
        }
        let valued = match (&spec.method, engine.as_mut()) {
            (Method::Search { depth, threshold }, Some(e)) => {
                search_value(e, &game, *depth, *threshold)?.map(|scores| {
                    let by = format!("search depth {depth} scores {:+} {:+}", scores.0, scores.1);
                    ("even".to_string(), by)
                })
            }
            _ => Some(("draw".to_string(), "tb".to_string())),
        };
        let checked = match (valued, spec.check, engine.as_mut()) {
            (Some(v), Some(check), Some(e)) => {
                let results = self_play(e, &game, check)?;
                let white = results.iter().filter(|r| **r == Some(Color::White)).count();
                let black = results.iter().filter(|r| **r == Some(Color::Black)).count();
                if white == black {
                    Some((v, Some(check_field(check, &results))))
                } else {
                    p.unlevel += 1;
                    progress(&p);
                    continue;
                }
            }
            (v, _, _) => v.map(|v| (v, None)),
        };
        match checked {
            Some(((value, by), check)) => {
                book.push(Entry {
                    opening: Opening {
                        start: spec.start,
                        fen: spec.start_fen.clone(),
                        moves: game.moves().to_vec(),
                    },
                    fen: game.position().fen(&rules),
                    value,
                    by,
                    check,
                });
                p.kept = book.len();
            }
            None => p.refused += 1,
        }
        progress(&p);
    }
    Ok(book)
}

/// `spec.plies` random whole turns from the start, or `None` where the
/// game ended (or, with databases, no move kept the draw). With
/// databases, each move is drawn among those that keep the draw.
fn random_line(
    spec: &BookSpec,
    rules: &Rules,
    rng: &mut SeededRng,
    tables: Option<&Tablebases>,
) -> Option<Game> {
    let mut game = Game::from_position(*rules, spec.start);
    let mut list = MoveList::new();
    for _ in 0..spec.plies {
        if game.outcome().is_some() {
            return None;
        }
        let choices: Vec<Move> = match tables {
            None => {
                list.clear();
                game.position().legal_moves(rules, &mut list);
                list.iter().copied().collect()
            }
            Some(t) => probe_root(t, rules, game.position())
                .moves
                .iter()
                .filter(|(_, v)| v.and_then(|v| v.rule) == Some(Wdl::Draw))
                .map(|&(m, _)| m)
                .collect(),
        };
        if choices.is_empty() {
            return None;
        }
        let m = choices[rng.below(choices.len())];
        game.play(m).ok()?;
    }
    if game.outcome().is_some() {
        return None;
    }
    if let Some(t) = tables
        && t.value(game.position()).and_then(|v| v.rule) != Some(Wdl::Draw)
    {
        return None;
    }
    Some(game)
}

/// The search that values an opening: depth `depth`, one line, full
/// strength, one thread and a fixed seed, so that its score depends on
/// the position alone (with a new game's empty table).
pub fn search_limits(depth: u32) -> Limits {
    Limits {
        depth: Some(depth),
        ..Limits::reproducible()
    }
}

/// The scores, White's view, of a search of the game's position and of
/// the position after the move it chose, if both lie within `threshold`.
fn search_value(
    engine: &mut Engine,
    game: &Game,
    depth: u32,
    threshold: i32,
) -> Result<Option<(i32, i32)>, EngineError> {
    let mut line = game.clone();
    let mut scores = [0; 2];
    for score in &mut scores {
        engine.new_game()?;
        engine.set_game(line.clone())?;
        if line.outcome().is_some() {
            return Ok(None);
        }
        let result = engine.search_blocking(search_limits(depth))?;
        if result.score.abs() > threshold {
            return Ok(None);
        }
        *score = match line.position().side_to_move() {
            Color::White => result.score,
            Color::Black => -result.score,
        };
        let Some(best) = result.best else {
            return Ok(None);
        };
        play_searched(&mut line, best)?;
    }
    Ok(Some((scores[0], scores[1])))
}

/// Plays the move a search chose (legal, unless the search is wrong: then
/// the error names the move as a `position` command would).
fn play_searched(line: &mut Game, m: Move) -> Result<(), EngineError> {
    line.play(m).map_err(|source| {
        EngineError::Position(GameError::Illegal {
            index: line.moves().len() + 1,
            text: m.to_string(),
            source,
        })
    })
}

/// The winners of the self-play check's games from `game` (`None`: a
/// draw).
fn self_play(
    engine: &mut Engine,
    game: &Game,
    check: Check,
) -> Result<Vec<Option<Color>>, EngineError> {
    let mut winners = Vec::new();
    for i in 0..check.games {
        let nodes = check_nodes(check, i);
        engine.new_game()?;
        let mut line = game.clone();
        let winner = loop {
            engine.set_game(line.clone())?;
            match line.outcome() {
                Some(Outcome::Win { winner, .. }) => break Some(winner),
                Some(Outcome::Draw(_)) => break None,
                None if line.moves().len() >= game.moves().len() + CHECK_MAX_TURNS => break None,
                None => {}
            }
            let limits = Limits {
                nodes: Some(nodes),
                ..Limits::reproducible()
            };
            match engine.search_blocking(limits)?.best {
                Some(m) => play_searched(&mut line, m)?,
                None => break None,
            }
        };
        winners.push(winner);
    }
    Ok(winners)
}

/// The nodes a move of the check's game `i`.
fn check_nodes(check: Check, i: u32) -> u64 {
    check.nodes.saturating_mul(u64::from(i) + 2) / 2
}

/// The `check` field: the nodes of each game and its result.
fn check_field(check: Check, winners: &[Option<Color>]) -> String {
    let nodes: Vec<String> = (0..check.games)
        .map(|i| check_nodes(check, i).to_string())
        .collect();
    let results: Vec<&str> = winners
        .iter()
        .map(|w| match w {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        })
        .collect();
    format!("self-play nodes {}: {}", nodes.join(" "), results.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(rules: &Rules, moves: &[&str]) -> Position {
        let game = Game::from_moves(*rules, Position::startpos(rules), moves.iter().copied())
            .expect("legal moves");
        *game.position()
    }

    #[test]
    fn symmetric_copies_and_transpositions_count_once() {
        let rules = Variant::Nine.rules();
        let key = |moves: &[&str]| canonical(&after(&rules, moves), &rules);
        // A quarter turn, a mirror, the ring exchange.
        assert_eq!(key(&["d6"]), key(&["f4"]));
        assert_eq!(key(&["a7", "d6"]), key(&["g7", "d6"]));
        assert_eq!(key(&["d7"]), key(&["d5"]));
        // The same position by another order of moves.
        assert_eq!(key(&["d6", "a1", "f4"]), key(&["f4", "a1", "d6"]));
        // Different positions (a middle point is not an outer one; the
        // colours exchanged).
        assert_ne!(key(&["d6"]), key(&["d7"]));
        assert_ne!(key(&["d6"]), key(&["a7"]));
        assert_ne!(key(&["d6", "a1"]), key(&["a1", "d6"]));
    }
}

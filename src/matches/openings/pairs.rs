//! One opening for every game pair: the openings file's, in file order
//! or shuffled, or the start position, each followed by seeded random
//! plies; and a digest that shows two runs drew the same ones.

use std::path::PathBuf;
use std::sync::Arc;

use super::book::load;
use super::{Opening, OpeningError};
use crate::core::{MoveList, Rules};
use crate::random::SeededRng;

/// Where each pair's opening comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningSource {
    pub file: Option<PathBuf>,
    pub random_plies: u32,
    pub shuffle: bool,
}

/// `base` followed by `plies` random legal turns that leave the game
/// open, or `None` if the draw ended the game.
fn random_extension(
    base: &Opening,
    plies: u32,
    rules: &Rules,
    rng: &mut SeededRng,
) -> Option<Opening> {
    let mut game = base.game(rules);
    let mut moves = base.moves.clone();
    let mut list = MoveList::new();
    for _ in 0..plies {
        if game.outcome().is_some() {
            return None;
        }
        list.clear();
        game.position().legal_moves(rules, &mut list);
        if list.is_empty() {
            return None;
        }
        let m = list[rng.below(list.len())];
        game.play(m).ok()?;
        moves.push(m);
    }
    if game.outcome().is_some() {
        return None;
    }
    Some(Opening {
        moves,
        ..base.clone()
    })
}

/// One opening per game pair, `pairs` in all.
pub fn for_pairs(
    source: &OpeningSource,
    rules: &Rules,
    seed: u64,
    pairs: usize,
) -> Result<Vec<Arc<Opening>>, OpeningError> {
    let mut base: Vec<Opening> = match &source.file {
        Some(path) => load(path, rules)?,
        None => vec![Opening::startpos(rules)],
    };
    if source.shuffle {
        SeededRng::new(seed).shuffle(&mut base);
    }
    let base: Vec<Arc<Opening>> = base.into_iter().map(Arc::new).collect();
    if source.random_plies == 0 {
        return Ok((0..pairs)
            .map(|i| Arc::clone(&base[i % base.len()]))
            .collect());
    }
    let mut out = Vec::with_capacity(pairs);
    for i in 0..pairs {
        // A generator per pair: the openings do not depend on the order
        // anything else draws random numbers in.
        let mut rng = SeededRng::new(seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let from = &base[i % base.len()];
        let opening = (0..1000)
            .find_map(|_| random_extension(from, source.random_plies, rules, &mut rng))
            .ok_or(OpeningError::NoRandomOpening {
                plies: source.random_plies,
            })?;
        out.push(Arc::new(opening));
    }
    Ok(out)
}

/// A fingerprint of the openings of every pair (FNV-1a over their lines):
/// slices of one match (`--shard`) draw them all, so equal digests show
/// that they played the same openings, whatever machine drew them.
pub fn digest(openings: &[Arc<Opening>]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for opening in openings {
        for byte in opening.line().bytes().chain(std::iter::once(b'\n')) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::openings::book::parse_opening;

    #[test]
    fn random_openings_are_seeded_and_legal() {
        let rules = Rules::default();
        let source = OpeningSource {
            file: None,
            random_plies: 6,
            shuffle: false,
        };
        let a = for_pairs(&source, &rules, 7, 5).expect("openings");
        let b = for_pairs(&source, &rules, 7, 5).expect("openings");
        assert_eq!(a, b);
        assert_ne!(a[0], a[1]);
        for o in &a {
            assert_eq!(o.moves.len(), 6);
            let replayed = parse_opening(&o.line(), &rules).expect("legal");
            assert_eq!(&replayed, o.as_ref());
        }
    }
}

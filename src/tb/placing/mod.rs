//! Databases of the placing phase (standard rules: nine pieces a side,
//! White first, a placing mill removes from the board): the value, win,
//! draw or loss for the side to move, of every position with pieces still
//! in hand, for every number of placements made.
//!
//! The placing phase is acyclic: every ply puts a piece from a hand on the
//! board, so layer `k` (placements made, 0 to 17) follows from layer
//! `k + 1` alone, and layer 17 (Black's last placement) from the moving
//! phase's `.tb` files at a counter of 0 (placing resets the N-move
//! counter). One backward pass from layer 17 to 0 values the whole phase
//! (`build.rs`).
//!
//! Within a layer the side to move has placed `ceil(k / 2)` or `k / 2`
//! pieces and holds the rest; the pieces on the board of each side, fewer
//! where mills removed some, make its sectors, each indexed like a
//! moving-phase subspace (side to move's set by symmetry class, then the
//! other's rank, `index.rs`). A sector where a side has fewer than three
//! pieces on board and in hand together is not a position of the game
//! (that side has lost) and has no slots. Every position of the other
//! sectors is valued, reachable or not.
//!
//! One file per layer, `mulino-place-K.tb`: the common header (`format.rs`,
//! kind 2, the layer in byte 19, the pieces a side in byte 20, the most
//! pieces a side of the sectors built in byte 21: 9 for all of them), then
//! two bits a slot, the sectors one after another in the order of
//! [`Layer::sectors`]: 0 draw, 1 win, 2 loss (3 for no position).
//!
//! Layer 17 takes the moving phase's values at a counter of 0 under the
//! N-move limits the layers are built for (`tb build --n-move`, named in
//! the header): a `.tb` win or loss counts only if its next removal, from
//! the `.dtz` file exact under those limits, is within the limit
//! (`tb::nmove`; for the standard rules under 100, 6-4 alone has 51,948
//! wins drawn so). The engine takes the layers as exact only under the
//! limits of their header.

pub mod build;
pub mod verify;

use std::path::Path;

use super::error::TbError;
use super::format::Kind;
use super::index::Subspace;
use super::mapped::MappedTable;
use super::rules::TbRules;
use super::value::Wdl;
use crate::core::{
    Bitboard, Color, FenAction, FenPhase, FullBoardAction, PlacingMill, Position, Rules, Setup,
};

/// The pieces a side of the rules the placing databases support.
pub const PIECES: u8 = 9;
/// The number of layers: placements made before the last one, 0 to 17.
pub const LAYERS: u8 = 2 * PIECES;

/// The placing rules the databases support (with the moving-phase rules
/// of `TbRules`): nine pieces, White first, mills while placing remove
/// from the board, one piece a mill, no moving while placing.
pub fn check_rules(rules: &Rules) -> Result<TbRules, TbError> {
    let tb = TbRules::from_rules(rules)?;
    let unsupported = |what: &str| {
        Err(TbError::UnsupportedRules(format!(
            "the placing phase: {what}"
        )))
    };
    if rules.pieces != PIECES {
        return unsupported("only nine pieces a side");
    }
    if rules.move_in_placing {
        return unsupported("moving while placing");
    }
    if rules.placing_mill != PlacingMill::RemoveFromBoard {
        return unsupported("a placing mill that does not remove from the board");
    }
    if rules.defender_moves_first || rules.full_board != FullBoardAction::FirstPlayerLoses {
        return unsupported("the rules for when placing ends");
    }
    Ok(tb)
}

/// A two-bit value of the placing files.
pub const DRAW: u8 = 0;
pub const WIN: u8 = 1;
pub const LOSS: u8 = 2;

/// The value of a two-bit code.
pub fn wdl(code: u8) -> Wdl {
    match code {
        WIN => Wdl::Win,
        LOSS => Wdl::Loss,
        _ => Wdl::Draw,
    }
}

/// The code of a value.
pub fn code(v: Wdl) -> u8 {
    match v {
        Wdl::Win => WIN,
        Wdl::Loss => LOSS,
        Wdl::Draw => DRAW,
    }
}

/// One sector of a layer: the side to move's pieces on the board against
/// the other's, its index, and its first slot in the layer.
#[derive(Clone, Debug)]
pub struct Sector {
    pub own: u8,
    pub opp: u8,
    pub sub: Subspace,
    pub first: u64,
}

/// One layer of the placing phase: `k` placements made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layer {
    pub k: u8,
    /// The most pieces a side may have, on the board and in hand, in the
    /// sectors built (`PIECES` for all).
    pub max: u8,
}

impl Layer {
    /// Layer `k` with every sector.
    pub fn full(k: u8) -> Layer {
        Layer { k, max: PIECES }
    }

    /// The side to move.
    pub fn side(self) -> Color {
        if self.k % 2 == 0 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The pieces each side has placed: the side to move's, the other's.
    pub fn placed(self) -> (u8, u8) {
        let white = self.k.div_ceil(2);
        let black = self.k / 2;
        match self.side() {
            Color::White => (white, black),
            Color::Black => (black, white),
        }
    }

    /// The pieces each side holds: the side to move's, the other's.
    pub fn hands(self) -> (u8, u8) {
        let (own, opp) = self.placed();
        (PIECES - own, PIECES - opp)
    }

    /// Whether the sector with `own` and `opp` pieces on the board is one
    /// of this layer's (each side at least three pieces on board and in
    /// hand, and, in a restricted build, at most `max`).
    pub fn has_sector(self, own: u8, opp: u8) -> bool {
        let (placed_own, placed_opp) = self.placed();
        let (hand_own, hand_opp) = self.hands();
        let total = |on: u8, hand: u8| on + hand;
        own <= placed_own
            && opp <= placed_opp
            && total(own, hand_own) >= 3
            && total(opp, hand_opp) >= 3
            && total(own, hand_own) <= self.max
            && total(opp, hand_opp) <= self.max
    }

    /// Whether a game can reach the sector with `own` and `opp` pieces on
    /// the board: a side that has removed `r > 0` pieces closed `r` mills
    /// while placing (one removal a move), the first with its third
    /// piece and each later one with at least one more. The file holds
    /// every sector of the layer (`sectors`), these and the others alike;
    /// `tb stats` counts only these (in layer 1, the empty board with one
    /// white piece placed and taken is one slot no game reaches).
    pub fn reachable(self, own: u8, opp: u8) -> bool {
        let (placed_own, placed_opp) = self.placed();
        let could_remove = |placed: u8, removed: u8| removed == 0 || placed >= removed + 2;
        self.has_sector(own, opp)
            && could_remove(placed_own, placed_opp - opp)
            && could_remove(placed_opp, placed_own - own)
    }

    /// The layer's sectors, in file order (by the side to move's count,
    /// then the other's), with their first slots.
    pub fn sectors(self) -> Vec<Sector> {
        let (placed_own, placed_opp) = self.placed();
        let mut first = 0;
        let mut out = Vec::new();
        for own in 0..=placed_own {
            for opp in 0..=placed_opp {
                if !self.has_sector(own, opp) {
                    continue;
                }
                let sub = Subspace::with_counts(own, opp).expect("counts fit the board");
                let len = sub.len();
                out.push(Sector {
                    own,
                    opp,
                    sub,
                    first,
                });
                first += len;
            }
        }
        out
    }

    /// The slots of the layer.
    pub fn slots(self) -> u64 {
        self.sectors().iter().map(|s| s.sub.len()).sum()
    }

    /// The layer of a position of the placing phase (pieces in hand, no
    /// removal owed, the hands as the standard order of play leaves them).
    pub fn of(pos: &Position) -> Option<Layer> {
        if pos.pending_removals() > 0 || !pos.is_placing() {
            return None;
        }
        let white = PIECES.checked_sub(pos.in_hand(Color::White))?;
        let black = PIECES.checked_sub(pos.in_hand(Color::Black))?;
        let k = white + black;
        let layer = Layer::full(k);
        let order = white == black || white == black + 1;
        (order && k < LAYERS && layer.side() == pos.side_to_move()).then_some(layer)
    }

    /// The rules core's position of this layer with `own` (the side to
    /// move) against `opp` on the board (`None` if the core refuses it).
    pub fn position(self, rules: &Rules, own: Bitboard, opp: Bitboard) -> Option<Position> {
        let side = self.side();
        let (hand_own, hand_opp) = self.hands();
        let mut board = [Bitboard::EMPTY; 2];
        board[side.index()] = own;
        board[side.opponent().index()] = opp;
        let mut in_hand = [0u8; 2];
        in_hand[side.index()] = hand_own;
        in_hand[side.opponent().index()] = hand_opp;
        let setup = Setup {
            board,
            marked: Bitboard::EMPTY,
            side,
            phase: FenPhase::Placing,
            action: FenAction::Place,
            on_board: [board[0].count() as u8, board[1].count() as u8],
            in_hand,
            to_remove: [0, 0],
            last_mill: [None; 4],
            formed: [Bitboard::EMPTY; 2],
            rule50: 0,
            fullmove: 1 + self.k as u16 / 2,
            blocked_removal: false,
        };
        Position::from_setup(&setup, rules).ok()
    }
}

/// A layer's file opened for probing, with its sectors.
pub struct PlacingLoaded {
    pub layer: Layer,
    pub sectors: Vec<Sector>,
    lookup: SectorIndex,
    pub table: MappedTable,
}

/// Counts a side may have on the board: 0 to 12.
pub(crate) const COUNTS: usize = 13;

/// Which of a layer's sectors (by their place in its list) has given
/// counts on the board, if one has.
pub struct SectorIndex(Vec<Option<usize>>);

impl SectorIndex {
    pub fn new(sectors: &[Sector]) -> SectorIndex {
        let mut at = vec![None; COUNTS * COUNTS];
        for (i, s) in sectors.iter().enumerate() {
            at[s.own as usize * COUNTS + s.opp as usize] = Some(i);
        }
        SectorIndex(at)
    }

    /// The sector with `own` pieces of the side to move and `opp` of the
    /// other on the board.
    #[inline]
    pub fn find(&self, own: usize, opp: usize) -> Option<usize> {
        if own >= COUNTS || opp >= COUNTS {
            return None;
        }
        self.0[own * COUNTS + opp]
    }
}

impl PlacingLoaded {
    /// Layer `k`'s file in `dir`, for `rules`.
    pub fn open(dir: &Path, rules: TbRules, k: u8) -> Result<PlacingLoaded, TbError> {
        let table = open_any_layer(dir, rules, k)?;
        let layer = Layer {
            k,
            max: table.header.max,
        };
        let sectors = layer.sectors();
        let lookup = SectorIndex::new(&sectors);
        Ok(PlacingLoaded {
            layer,
            sectors,
            lookup,
            table,
        })
    }

    /// The two-bit value of `own` (to move) against `opp`, if its sector
    /// was built.
    #[inline]
    pub fn code(&self, own: Bitboard, opp: Bitboard) -> Option<u8> {
        let (o, p) = (own.count() as usize, opp.count() as usize);
        let s = &self.sectors[self.lookup.find(o, p)?];
        Some(get(self.table.slots(), s.first + s.sub.index(own, opp)))
    }
}

/// Opens layer `k`'s file in `dir`, built for `rules` and for sectors of
/// at most `max` pieces a side.
pub fn open_layer(dir: &Path, rules: TbRules, k: u8, max: u8) -> Result<MappedTable, TbError> {
    open_layer_with(dir, rules, k, Some(max))
}

/// Opens layer `k`'s file in `dir` built for `rules`, whatever sectors it
/// holds (its header says: `header.max`).
pub fn open_any_layer(dir: &Path, rules: TbRules, k: u8) -> Result<MappedTable, TbError> {
    open_layer_with(dir, rules, k, None)
}

fn open_layer_with(
    dir: &Path,
    rules: TbRules,
    k: u8,
    max: Option<u8>,
) -> Result<MappedTable, TbError> {
    let path = dir.join(file_name(k));
    MappedTable::open_path(path, Kind::Placing, rules, |h, path| {
        let max = max.unwrap_or(h.max);
        if h.layer != k || h.pieces != PIECES || h.max != max || !(3..=PIECES).contains(&max) {
            return Err(TbError::WrongSubspace {
                path: path.to_path_buf(),
                found: format!(
                    "layer {} of {} pieces, at most {}",
                    h.layer, h.pieces, h.max
                ),
                wanted: format!("layer {k} of {} pieces, at most {max}", PIECES),
            });
        }
        let slots = Layer { k, max }.slots();
        if h.slots != slots {
            return Err(TbError::BadLength {
                path: path.to_path_buf(),
                found: h.slots,
                expected: slots,
            });
        }
        Ok(slots.div_ceil(4))
    })
}

/// The order in which a sector's positions are valued: by the other
/// side's set (the side to move after the placement), each of its
/// symmetry classes with every set of the side to move against it. All
/// the positions one class leads to then lie in a few blocks of the next
/// layer (one for the quiet placements, one per removable piece), which
/// stay in the cache while the class is walked; only the one write per
/// position lands anywhere in the layer. Each slot of the sector is
/// visited exactly once: a position with the other's set canonical, the
/// mover's least under the symmetries that fix that set.
pub(crate) fn walk_order(sector: &Sector) -> Subspace {
    Subspace::with_counts(sector.opp, sector.own)
        .expect("a sector's counts, swapped, fit the board")
}

/// The file name of layer `k`.
pub fn file_name(k: u8) -> String {
    format!("mulino-place-{k}.tb")
}

/// The two-bit code of slot `slot` of packed layer bytes.
#[inline]
pub fn get(bytes: &[u8], slot: u64) -> u8 {
    (bytes[(slot / 4) as usize] >> (2 * (slot % 4))) & 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_follow_the_order_of_play() {
        let first = Layer::full(0);
        assert_eq!(
            (first.side(), first.placed(), first.hands()),
            (Color::White, (0, 0), (9, 9))
        );
        let last = Layer::full(17);
        assert_eq!(
            (last.side(), last.placed(), last.hands()),
            (Color::Black, (8, 9), (1, 0))
        );
        // The start is one position; the first layer one sector.
        assert_eq!(first.sectors().len(), 1);
        assert_eq!(first.slots(), 1);
        // Layer 17: Black has 8 placed and 1 in hand (2 to 8 on board),
        // White 9 placed and none in hand (3 to 9 on board).
        let sectors = last.sectors();
        assert_eq!(sectors.len(), 7 * 7);
        assert!(
            sectors
                .iter()
                .all(|s| (2..=8).contains(&s.own) && (3..=9).contains(&s.opp))
        );
        let start = Position::startpos(&Rules::default());
        assert_eq!(Layer::of(&start), Some(first));
    }

    #[test]
    fn every_sector_a_game_reaches_counts_as_reachable() {
        use crate::core::{Game, MoveList};
        // Layer 1: White's one piece is on the board; no one has taken it.
        assert!(Layer::full(1).reachable(0, 1) && !Layer::full(1).reachable(0, 0));
        // Layer 5 (Black to move, 2 placed against 3): White may have
        // closed a mill with its third piece, Black not yet.
        assert!(Layer::full(5).reachable(1, 3) && !Layer::full(5).reachable(2, 2));
        // Games that close every mill they can (and a random move
        // otherwise) reach the sectors with the most removals soonest.
        let rules = Rules::default();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut list = MoveList::new();
        let mut seen = 0;
        for _ in 0..400 {
            let mut game = Game::new(rules);
            loop {
                let pos = *game.position();
                let Some(layer) = Layer::of(&pos) else { break };
                let side = pos.side_to_move();
                let (own, opp) = (pos.pieces(side), pos.pieces(side.opponent()));
                assert!(
                    layer.reachable(own.count() as u8, opp.count() as u8),
                    "layer {} reached with {} against {}: {}",
                    layer.k,
                    own.count(),
                    opp.count(),
                    pos.fen(&rules)
                );
                seen += 1;
                pos.legal_moves(&rules, &mut list);
                if list.is_empty() {
                    break;
                }
                let milling: Vec<_> = list.iter().filter(|m| m.removal_count() > 0).collect();
                let m = if milling.is_empty() || next() % 4 == 0 {
                    list[(next() % list.len() as u64) as usize]
                } else {
                    *milling[(next() % milling.len() as u64) as usize]
                };
                if game.play(m).is_err() {
                    break;
                }
            }
        }
        assert!(seen > 400 * 10, "{seen} positions");
    }

    #[test]
    fn a_restricted_layer_keeps_the_sectors_within_its_counts() {
        let layer = Layer { k: 16, max: 5 };
        // White (to move) at most 4 on board with 1 in hand, Black at most
        // 4 with 1 in hand.
        for s in layer.sectors() {
            assert!(s.own < 5 && s.opp < 5, "{s:?}");
        }
        assert!(layer.has_sector(4, 4) && !layer.has_sector(5, 4));
    }
}

//! The database file format, version 2, and the values it stores. Two
//! kinds of file per subspace, both one byte per slot of the subspace's
//! index (see `index.rs`): `mulino-W-B.tb`, the value and the distance to
//! the end of the game, and `mulino-W-B.dtz`, the distance to the next
//! removal, which the N-move rules need (below).
//!
//! Version 2 orders a moving-phase file's slots by the symmetry class of
//! the side not to move (version 1: of the side to move), which is what
//! lets the builder find a position's predecessors, and its removals'
//! positions, in one block of a table (`index.rs`); the placing layers
//! are laid out as before. A file of another version is refused, with a
//! word to rebuild it.
//!
//! A 128-byte header, then the slot bytes, little-endian throughout:
//!
//! ```text
//!   0  8  magic "MULINOTB"
//!   8  4  format version (2)
//!  12  1  own pieces W (side to move)      13  1  opponent pieces B
//!  14  1  flying (0/1)                     15  1  fly at (pieces)
//!  16  1  diagonal lines (0/1)             17  1  mill pieces always removable (0/1)
//!  18  1  kind: 0 distance to the end (.tb), 1 distance to the next removal (.dtz),
//!           2 a layer of the placing phase (`tb::placing`), 3 values under
//!           an N-move rule (.wdz)
//!  19  1  placing layer (placements made)   20  1  pieces a side (placing; else 0)
//!  21  1  most pieces a side built (placing; else 0)
//!  22  2  zero
//!  24  8  slots
//!  32  8  wins      40  8  losses      48  8  draws   (per symmetry class)
//!  56  1  longest win                     57  1  longest loss
//!  58  6  zero
//!  64  8  FNV-1a 64 of the slot bytes
//!  72  2  .dtz, .wdz: the NMoveRule its removals were valued under (0: none)
//!  74  2  .dtz, .wdz: the EndgameNMoveRule likewise       76  4  zero
//!  80  8  .dtz: wins and losses the rule draws at every counter (.wdz: 0,
//!           not counted: it knows no values without the rule)
//!  88 40  zero
//! ```
//!
//! A slot byte is `0` for a draw (or a slot that holds no class), else
//! `distance + 1`: the side to move wins when the distance is odd and loses
//! when it is even. The distance counts plies to the end of the game with
//! best play (the winner hurries, the loser delays), through removals into
//! smaller subspaces; a side with no legal move has lost at distance 0,
//! and a removal that leaves two pieces wins at distance 1. The game ends
//! right after a move of the winner, so wins are odd and losses even; the
//! builder still checks every value that could break it (the scan's, and
//! the retrograde step's losses, whose distance may come from a removal;
//! its wins are one ply before a loss, odd by construction) and refuses to
//! write a table with one that does.
//!
//! A `.dtz` slot byte is `0` where the `.tb` file has a draw, else
//! `z + 1`, where z is the number of plies within which the winner can
//! force a removal that keeps the win (or a blockade), with the loser
//! delaying it: a removal into a position the smaller subspace gives as
//! lost for the side then to move, one that leaves two pieces, or a
//! position with no legal move. Its win or loss is the `.tb` file's (a
//! side that wins under an N-move rule wins without it). With `r` plies
//! left before the N-move rule draws (the limit less the counter), the
//! side to move wins if it wins and `z <= r`, loses if it loses and
//! `z <= r`, and draws otherwise: the rule lets each stretch between
//! removals last up to `r` plies, and every removal resets the counter.
//! These values take the smaller subspaces' values as the `.tb` files give
//! them, so they are exact for a limit under which no position of those
//! subspaces is drawn by the rule from a counter of 0 (the `.dtz` header's
//! longest distances tell which limits those are).
//!
//! A `.wdz` file (`mulino-W-B-n100-100.wdz`) holds what a `.tb` and a
//! `.dtz` file for one limit give together, for that limit only, and is
//! built without either: its slot byte is `0` for a draw under the rule
//! at every counter (a draw, or a win or loss the rule draws), `1 + z`
//! for a win and `129 + z` for a loss whose next removal (as above) is
//! `z` plies away, `z` at most the subspace's limit (126 at most). With
//! `r` plies left, the side to move wins or loses if `z <= r`, and draws
//! otherwise. Its removals take the smaller subspaces' values under the
//! same limits from a counter of 0, from their `.wdz` files (or their
//! `.tb` and `.dtz` files), so it is exact by construction. The whole
//! game under one rule (the moving phase and the placing layers built
//! on it) needs these files only, and they cost about half of the
//! `.tb` and `.dtz` pair; what they cannot say is a position's value
//! without the rule, where the rule draws it.
//!
//! This is the measure of the published per-subspace table (the longest
//! distance is 204 plies); its README calls it the distance "to
//! conversion", but its numbers count through removals to the end of the
//! game, which is what reproduces them exactly (3-4: longest win 33 plies,
//! where stopping at the removal gives 11).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::TbError;
use super::nmove::NMoveLimits;
use super::rules::TbRules;
use super::trust::Checked;
use super::value::Value;

pub const MAGIC: &[u8; 8] = b"MULINOTB";
pub const VERSION: u32 = 2;
pub const HEADER_LEN: usize = 128;

/// What a file's slot bytes count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The value and the plies to the end of the game (`.tb`).
    ToEnd,
    /// The plies to the next removal that keeps the value (`.dtz`).
    ToRemoval,
    /// A layer of the placing phase: win, draw or loss (`tb::placing`).
    Placing,
    /// The value under the N-move rules and the plies to the next removal
    /// that keeps it, with no `.tb` file beside it (`.wdz`).
    UnderRule,
}

impl Kind {
    pub(crate) fn byte(self) -> u8 {
        match self {
            Kind::ToEnd => 0,
            Kind::ToRemoval => 1,
            Kind::Placing => 2,
            Kind::UnderRule => 3,
        }
    }

    fn from_byte(b: u8) -> Option<Kind> {
        match b {
            0 => Some(Kind::ToEnd),
            1 => Some(Kind::ToRemoval),
            2 => Some(Kind::Placing),
            3 => Some(Kind::UnderRule),
            _ => None,
        }
    }

    /// The file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Kind::ToEnd | Kind::Placing => "tb",
            Kind::ToRemoval => "dtz",
            Kind::UnderRule => "wdz",
        }
    }

    /// What a file of this kind holds, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::ToEnd => "distances to the end",
            Kind::ToRemoval => "distances to the next removal",
            Kind::Placing => "a layer of the placing phase",
            Kind::UnderRule => "values under an N-move rule",
        }
    }
}

/// The file name of subspace `own-opp`'s values (`.tb`).
pub fn file_name(own: u8, opp: u8) -> String {
    file_name_of(Kind::ToEnd, own, opp)
}

/// The file name of subspace `own-opp` of kind `kind`.
pub fn file_name_of(kind: Kind, own: u8, opp: u8) -> String {
    format!("mulino-{own}-{opp}.{}", kind.extension())
}

/// The file name of subspace `own-opp`'s distances to the next removal
/// with the removals valued under `limits`: `mulino-W-B.dtz` without
/// N-move rules (good for every limit under which the smaller subspaces
/// are not drawn from a counter of 0), `mulino-W-B-n100-100.dtz` under
/// `NMoveRule` 100 and `EndgameNMoveRule` 100.
pub fn dtz_file_name(own: u8, opp: u8, limits: NMoveLimits) -> String {
    if limits == NMoveLimits::NONE {
        file_name_of(Kind::ToRemoval, own, opp)
    } else {
        format!(
            "mulino-{own}-{opp}-n{}-{}.dtz",
            limits.n_move, limits.endgame
        )
    }
}

/// The file name of subspace `own-opp`'s values under `limits` (never
/// none): `mulino-W-B-n100-100.wdz`.
pub fn wdz_file_name(own: u8, opp: u8, limits: NMoveLimits) -> String {
    format!(
        "mulino-{own}-{opp}-n{}-{}.wdz",
        limits.n_move, limits.endgame
    )
}

/// The header fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub kind: Kind,
    /// Placing files: the layer, the pieces a side and the most pieces a
    /// side of the sectors built (all 0 for the moving phase's).
    pub layer: u8,
    pub pieces: u8,
    pub max: u8,
    pub own: u8,
    pub opp: u8,
    pub rules: TbRules,
    pub slots: u64,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    pub max_win: u8,
    pub max_loss: u8,
    pub checksum: u64,
    /// `.dtz`: the N-move limits the removals were valued under, and the
    /// wins and losses the rule then draws at every counter.
    pub limits: NMoveLimits,
    pub cursed: u64,
}

impl Header {
    /// Counts one class of value `v`.
    pub fn count(&mut self, v: Value) {
        self.count_many(v, 1);
    }

    /// Counts `n` classes of value `v` (at least one).
    pub fn count_many(&mut self, v: Value, n: u64) {
        match v {
            Value::Win(d) => {
                self.wins += n;
                self.max_win = self.max_win.max(d);
            }
            Value::Loss(d) => {
                self.losses += n;
                self.max_loss = self.max_loss.max(d);
            }
            Value::Draw => self.draws += n,
        }
    }

    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12] = self.own;
        h[13] = self.opp;
        h[14] = self.rules.flying as u8;
        h[15] = self.rules.fly_at;
        h[16] = self.rules.diagonals as u8;
        h[17] = self.rules.remove_from_mills_always as u8;
        h[18] = self.kind.byte();
        h[19] = self.layer;
        h[20] = self.pieces;
        h[21] = self.max;
        h[24..32].copy_from_slice(&self.slots.to_le_bytes());
        h[32..40].copy_from_slice(&self.wins.to_le_bytes());
        h[40..48].copy_from_slice(&self.losses.to_le_bytes());
        h[48..56].copy_from_slice(&self.draws.to_le_bytes());
        h[56] = self.max_win;
        h[57] = self.max_loss;
        h[64..72].copy_from_slice(&self.checksum.to_le_bytes());
        h[72..74].copy_from_slice(&self.limits.n_move.to_le_bytes());
        h[74..76].copy_from_slice(&self.limits.endgame.to_le_bytes());
        h[80..88].copy_from_slice(&self.cursed.to_le_bytes());
        h
    }

    pub fn parse(path: &Path, h: &[u8]) -> Result<Header, TbError> {
        if h.len() < HEADER_LEN || &h[0..8] != MAGIC {
            return Err(TbError::BadMagic(path.to_path_buf()));
        }
        let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().expect("8 bytes"));
        let version = u32::from_le_bytes(h[8..12].try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(TbError::BadVersion {
                path: path.to_path_buf(),
                found: version,
                expected: VERSION,
            });
        }
        // The bytes the format leaves unused are 0 (`to_bytes`); any other
        // is damage the checksum of the values cannot see.
        for at in (22..24).chain(58..64).chain(76..80).chain(88..HEADER_LEN) {
            if h[at] != 0 {
                return Err(TbError::BadHeader {
                    path: path.to_path_buf(),
                    at,
                    found: h[at],
                });
            }
        }
        let kind = Kind::from_byte(h[18]).ok_or_else(|| TbError::BadKind {
            path: path.to_path_buf(),
            found: h[18],
        })?;
        Ok(Header {
            kind,
            layer: h[19],
            pieces: h[20],
            max: h[21],
            own: h[12],
            opp: h[13],
            rules: TbRules {
                flying: h[14] != 0,
                fly_at: h[15],
                diagonals: h[16] != 0,
                remove_from_mills_always: h[17] != 0,
            },
            slots: u64_at(24),
            wins: u64_at(32),
            losses: u64_at(40),
            draws: u64_at(48),
            max_win: h[56],
            max_loss: h[57],
            checksum: u64_at(64),
            limits: NMoveLimits {
                n_move: u16::from_le_bytes([h[72], h[73]]),
                endgame: u16::from_le_bytes([h[74], h[75]]),
            },
            cursed: u64_at(80),
        })
    }
}

/// FNV-1a, 64 bits, of `data` (eight lanes, so that it runs near memory
/// speed; the lanes are then folded in order).
pub fn checksum(data: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    const BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    let mut lanes = [BASIS; 8];
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        for (lane, &byte) in lanes.iter_mut().zip(c) {
            *lane = (*lane ^ byte as u64).wrapping_mul(PRIME);
        }
    }
    let mut h = BASIS;
    for lane in lanes {
        h = (h ^ lane).wrapping_mul(PRIME);
    }
    for &byte in chunks.remainder() {
        h = (h ^ byte as u64).wrapping_mul(PRIME);
    }
    h
}

/// Writes a finished table: to `path.tmp.PID` first (a name of this
/// process's own, so that jobs building into one directory never write
/// one file), synced, then renamed, so that a file under the final name
/// is always complete; and records it
/// as checked in its directory's list (`trust.rs`): its bytes are the
/// ones its checksum was computed from. A note that an earlier file of
/// that name passed `tb verify` is removed.
pub fn write_table(path: &Path, header: &Header, slots: &[u8]) -> Result<(), TbError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp.{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let mut f = File::create(&tmp).map_err(TbError::io(&tmp))?;
    f.write_all(&header.to_bytes()).map_err(TbError::io(&tmp))?;
    f.write_all(slots).map_err(TbError::io(&tmp))?;
    f.sync_all().map_err(TbError::io(&tmp))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(TbError::io(path))?;
    crate::tb::trust::forget_verified(path);
    if let Some(dir) = path.parent() {
        Checked::record(dir, path, header.checksum);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Rules;
    #[test]
    fn header_round_trips() {
        let h = Header {
            kind: Kind::ToRemoval,
            layer: 0,
            pieces: 0,
            max: 0,
            own: 4,
            opp: 3,
            rules: TbRules::from_rules(&Rules::default()).unwrap(),
            slots: 12345,
            wins: 1,
            losses: 2,
            draws: 3,
            max_win: 5,
            max_loss: 8,
            checksum: 0xdead_beef,
            limits: NMoveLimits {
                n_move: 100,
                endgame: 40,
            },
            cursed: 7,
        };
        assert_eq!(Header::parse(Path::new("x"), &h.to_bytes()).unwrap(), h);
        // A byte the format leaves unused, changed, is damage.
        let mut bytes = h.to_bytes();
        bytes[127] = 1;
        assert!(matches!(
            Header::parse(Path::new("x"), &bytes),
            Err(TbError::BadHeader {
                at: 127,
                found: 1,
                ..
            })
        ));
    }
}

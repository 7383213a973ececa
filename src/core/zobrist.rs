//! Zobrist keys, generated at compile time by a fixed splitmix64 stream.

use super::point::{Color, Point};

const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

/// Largest hand size a key exists for (pieces per side is at most 12).
pub const MAX_HAND: usize = 12;
/// Largest pending-removal count a key exists for (one step removes at
/// most three; removals counted from mills at the end of placing may owe
/// more).
pub const MAX_PENDING: usize = 15;
/// Pending counts below this had their keys drawn first; the rest were
/// added later, drawn after every older key so that none of those changed.
const FIRST_PENDING: usize = 3;
/// Largest removal count owed by the side not to move (either sign).
pub const MAX_NEXT_OWED: usize = 15;

pub struct Keys {
    pub piece: [[u64; 24]; 2],
    pub black_to_move: u64,
    pub hand: [[u64; MAX_HAND + 1]; 2],
    pub pending: [u64; MAX_PENDING + 1],
    pub formed: [[u64; 24]; 2],
    /// Marked points (mark-and-delay rules).
    pub marked: [u64; 24],
    /// The pending removals take the mover's own pieces.
    pub own_removal: u64,
    /// Removals owed next by the opponent, indexed by count + 15.
    pub next_owed: [u64; 2 * MAX_NEXT_OWED + 1],
}

const fn build() -> Keys {
    let mut k = Keys {
        piece: [[0; 24]; 2],
        black_to_move: 0,
        hand: [[0; MAX_HAND + 1]; 2],
        pending: [0; MAX_PENDING + 1],
        formed: [[0; 24]; 2],
        marked: [0; 24],
        own_removal: 0,
        next_owed: [0; 2 * MAX_NEXT_OWED + 1],
    };
    let mut s = 0x6d75_6c69_6e6f_u64; // "mulino"
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < 24 {
            let (ns, v) = splitmix(s);
            s = ns;
            k.piece[c][i] = v;
            let (ns, v) = splitmix(s);
            s = ns;
            k.formed[c][i] = v;
            i += 1;
        }
        // Hand count 0 hashes to 0 so the empty-handed key needs no term.
        let mut h = 1;
        while h <= MAX_HAND {
            let (ns, v) = splitmix(s);
            s = ns;
            k.hand[c][h] = v;
            h += 1;
        }
        c += 1;
    }
    let (ns, v) = splitmix(s);
    s = ns;
    k.black_to_move = v;
    let mut p = 1;
    while p <= FIRST_PENDING {
        let (ns, v) = splitmix(s);
        s = ns;
        k.pending[p] = v;
        p += 1;
    }
    // Keys added with the later variants: drawn after all the older ones,
    // which keep their values (and the bench signature its hash keys).
    while p <= MAX_PENDING {
        let (ns, v) = splitmix(s);
        s = ns;
        k.pending[p] = v;
        p += 1;
    }
    let mut i = 0;
    while i < 24 {
        let (ns, v) = splitmix(s);
        s = ns;
        k.marked[i] = v;
        i += 1;
    }
    let (ns, v) = splitmix(s);
    s = ns;
    k.own_removal = v;
    let mut n = 0;
    while n < 2 * MAX_NEXT_OWED + 1 {
        // Nothing owed hashes to 0.
        if n != MAX_NEXT_OWED {
            let (ns, v) = splitmix(s);
            s = ns;
            k.next_owed[n] = v;
        }
        n += 1;
    }
    k
}

pub static KEYS: Keys = build();

#[inline]
pub fn piece(c: Color, p: Point) -> u64 {
    KEYS.piece[c.index()][p.index()]
}

#[inline]
pub fn hand(c: Color, n: u8) -> u64 {
    KEYS.hand[c.index()][(n as usize).min(MAX_HAND)]
}

#[inline]
pub fn pending(n: u8) -> u64 {
    KEYS.pending[(n as usize).min(MAX_PENDING)]
}

#[inline]
pub fn formed(c: Color, p: Point) -> u64 {
    KEYS.formed[c.index()][p.index()]
}

#[inline]
pub fn marked(p: Point) -> u64 {
    KEYS.marked[p.index()]
}

/// The key of `n` removals owed next by the opponent (0 for none).
#[inline]
pub fn next_owed(n: i8) -> u64 {
    let m = MAX_NEXT_OWED as i32;
    KEYS.next_owed[((n as i32).clamp(-m, m) + m) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_nonzero() {
        let mut all: Vec<u64> = KEYS.piece.iter().flatten().copied().collect();
        all.extend(KEYS.formed.iter().flatten());
        all.extend(KEYS.hand.iter().flat_map(|h| h[1..].iter()));
        all.extend(&KEYS.pending[1..]);
        all.extend(&KEYS.marked);
        all.push(KEYS.own_removal);
        all.extend(KEYS.next_owed.iter().filter(|&&k| k != 0));
        all.push(KEYS.black_to_move);
        assert!(all.iter().all(|&k| k != 0));
        // Owed counts of either sign have their own keys; none owed has 0.
        assert_eq!(next_owed(0), 0);
        assert_ne!(next_owed(-1), next_owed(1));
        assert_eq!(next_owed(-1), KEYS.next_owed[MAX_NEXT_OWED - 1]);
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}

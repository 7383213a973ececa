//! Moves (one whole turn: a placement or a slide/fly, and its removals),
//! their compact encoding, the notation, and a fixed-capacity move list.

use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;

use super::point::{Point, PointParseError};

/// One complete turn, packed in 25 bits of a `NonZeroU32`:
///
/// ```text
///  24      20 19      15 14      10 9        5 4        0
/// +----------+----------+----------+----------+----------+
/// | removal3 | removal2 | removal1 |   from   |    to    |
/// +----------+----------+----------+----------+----------+
/// ```
///
/// Each field is a point index (0..24) or 31 for "none": `from` = 31 is a
/// placement, `to` = 31 a removal-only turn (a position whose FEN has a
/// pending removal). Because unused removal fields hold 31 the value is
/// never zero, so `Option<Move>` is as small as `Move`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(NonZeroU32);

const NONE: u32 = 31;
const FIELD: u32 = 0x1f;
const MAX_REMOVALS: usize = 3;

impl Move {
    #[inline]
    fn pack(to: u32, from: u32, removals: [u32; MAX_REMOVALS]) -> Move {
        let bits = to | from << 5 | removals[0] << 10 | removals[1] << 15 | removals[2] << 20;
        // `removals[2]` is 31 for every move with fewer than three removals
        // and `to`/`from` are never both 31 with it, so the value is nonzero.
        Move(NonZeroU32::new(bits).unwrap_or(NonZeroU32::MIN))
    }

    #[inline]
    pub fn place(to: Point) -> Move {
        Move::pack(to.index() as u32, NONE, [NONE; 3])
    }

    #[inline]
    pub fn slide(from: Point, to: Point) -> Move {
        Move::pack(to.index() as u32, from.index() as u32, [NONE; 3])
    }

    #[inline]
    pub fn remove_only(p: Point) -> Move {
        Move::pack(NONE, NONE, [p.index() as u32, NONE, NONE])
    }

    /// This move with one more removal appended (at most three).
    #[inline]
    pub fn with_removal(self, p: Point) -> Move {
        let bits = self.0.get();
        for i in 0..MAX_REMOVALS {
            let shift = 10 + 5 * i as u32;
            if (bits >> shift) & FIELD == NONE {
                let bits = (bits & !(FIELD << shift)) | (p.index() as u32) << shift;
                return Move(NonZeroU32::new(bits).unwrap_or(NonZeroU32::MIN));
            }
        }
        self
    }

    /// The raw 32-bit encoding (for hash tables).
    #[inline]
    pub fn raw(self) -> u32 {
        self.0.get()
    }

    /// Rebuild from `raw()`; `None` for values no move encodes to.
    pub fn from_raw(raw: u32) -> Option<Move> {
        if raw >> 25 != 0 {
            return None;
        }
        let field = |s: u32| (raw >> s) & FIELD;
        let valid = |f: u32| f < 24 || f == NONE;
        if ![0, 5, 10, 15, 20].iter().all(|&s| valid(field(s))) {
            return None;
        }
        let m = Move(NonZeroU32::new(raw)?);
        // Removals are packed from the first field on, and a turn has a step
        // or a removal.
        let r = m.removal_fields();
        let packed = (r[0] != NONE || r[1] == NONE) && (r[1] != NONE || r[2] == NONE);
        let has_step_or_removal = m.to().is_some() || r[0] != NONE;
        let coherent = m.to().is_some() || m.from().is_none();
        (packed && has_step_or_removal && coherent).then_some(m)
    }

    #[inline]
    fn removal_fields(self) -> [u32; 3] {
        let b = self.0.get();
        [(b >> 10) & FIELD, (b >> 15) & FIELD, (b >> 20) & FIELD]
    }

    /// Destination of the step, `None` for a removal-only turn.
    #[inline]
    pub fn to(self) -> Option<Point> {
        Point::new((self.0.get() & FIELD) as u8)
    }

    /// Origin of a slide or fly, `None` for a placement.
    #[inline]
    pub fn from(self) -> Option<Point> {
        Point::new(((self.0.get() >> 5) & FIELD) as u8)
    }

    /// The removals, in the order they are made.
    #[inline]
    pub fn removals(self) -> impl Iterator<Item = Point> {
        self.removal_fields()
            .into_iter()
            .map_while(|f| Point::new(f as u8))
    }

    #[inline]
    pub fn removal_count(self) -> usize {
        self.removals().count()
    }

    /// Whether the turn removes a piece (removals are packed from the
    /// first field, so one field says it).
    #[inline]
    pub fn has_removal(self) -> bool {
        (self.0.get() >> 10) & FIELD != NONE
    }

    /// The step's `to` and `from` fields as one number below 1024 (`from`
    /// is 31 for a placement): an index for per-step tables.
    #[inline]
    pub fn step_index(self) -> usize {
        (self.0.get() & 0x3ff) as usize
    }

    #[inline]
    pub fn is_placement(self) -> bool {
        self.to().is_some() && self.from().is_none()
    }

    /// The same turn without its removals.
    #[inline]
    pub fn step(self) -> Move {
        Move::pack(
            self.0.get() & 0x3ff & FIELD,
            (self.0.get() >> 5) & FIELD,
            [NONE; 3],
        )
    }

    /// The step part in notation (`d6`, `d6-d5`), or the removals of a
    /// removal-only turn (`xb4`): what Sanmill lists as one legal action.
    pub fn step_text(self) -> String {
        let s = self.to_string();
        match s.find('x') {
            Some(0) | None => s,
            Some(i) => s[..i].to_string(),
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(to) = self.to() {
            if let Some(from) = self.from() {
                write!(f, "{from}-")?;
            }
            write!(f, "{to}")?;
        }
        for r in self.removals() {
            write!(f, "x{r}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({self})")
    }
}

/// Why a move did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveParseError {
    #[error("empty move")]
    Empty,
    #[error("bad point in move `{text}`: {source}")]
    BadPoint {
        text: String,
        source: PointParseError,
    },
    #[error("move `{0}` goes from a point to itself")]
    SamePoint(String),
    #[error("move `{0}` has more than three removals")]
    TooManyRemovals(String),
    #[error("move `{0}` removes the same point twice")]
    RepeatedRemoval(String),
}

impl FromStr for Move {
    type Err = MoveParseError;

    /// Parses `d6`, `d6-d5`, `d6xb4`, `d6-d5xb4xa1`, `xb4` (any case).
    fn from_str(text: &str) -> Result<Move, MoveParseError> {
        if text.is_empty() {
            return Err(MoveParseError::Empty);
        }
        let point = |s: &str| {
            s.parse::<Point>()
                .map_err(|source| MoveParseError::BadPoint {
                    text: text.to_string(),
                    source,
                })
        };
        let lower = text.to_ascii_lowercase();
        let mut parts = lower.split('x');
        let step = parts.next().unwrap_or("");
        let mut mv = if step.is_empty() {
            None
        } else if let Some((from, to)) = step.split_once('-') {
            let (from, to) = (point(from)?, point(to)?);
            if from == to {
                return Err(MoveParseError::SamePoint(text.to_string()));
            }
            Some(Move::slide(from, to))
        } else {
            Some(Move::place(point(step)?))
        };
        let mut count = 0;
        let mut seen = Vec::with_capacity(3);
        for r in parts {
            let p = point(r)?;
            if seen.contains(&p) {
                return Err(MoveParseError::RepeatedRemoval(text.to_string()));
            }
            seen.push(p);
            count += 1;
            if count > MAX_REMOVALS {
                return Err(MoveParseError::TooManyRemovals(text.to_string()));
            }
            mv = Some(match mv {
                None => Move::remove_only(p),
                Some(m) => m.with_removal(p),
            });
        }
        mv.ok_or(MoveParseError::Empty)
    }
}

/// Moves a list holds inline, on the stack. Ordinary positions have far
/// fewer (at most 104 steps, few of which close mills), but removal
/// choices multiply: with every knob combined (12 pieces, diagonals,
/// several removals, moving while placing, flying at 4) a step that closes
/// two or three mills has up to 66 or 220 removal sets. No bound below
/// that product is proven, so a list that outgrows this capacity moves to
/// the heap instead of dropping moves: overflow cannot lose a move.
pub const MAX_MOVES: usize = 1024;

/// A list of moves, inline (no allocation) up to [`MAX_MOVES`], on the
/// heap beyond.
pub struct MoveList {
    moves: std::mem::MaybeUninit<[Move; MAX_MOVES]>,
    /// How many moves the list holds (inline while there is no spill).
    len: usize,
    /// Every move, once there are more than `MAX_MOVES` (then the inline
    /// moves are stale).
    spill: Option<Vec<Move>>,
}

impl Default for MoveList {
    fn default() -> Self {
        Self::new()
    }
}

impl MoveList {
    #[inline]
    pub fn new() -> MoveList {
        MoveList {
            moves: std::mem::MaybeUninit::uninit(),
            len: 0,
            spill: None,
        }
    }

    #[inline]
    pub fn push(&mut self, m: Move) {
        if self.len < MAX_MOVES {
            // SAFETY: in bounds; writing through a raw pointer never reads
            // the uninitialised slot.
            unsafe {
                self.moves
                    .as_mut_ptr()
                    .cast::<Move>()
                    .add(self.len)
                    .write(m)
            };
            self.len += 1;
        } else {
            self.push_spilled(m);
        }
    }

    /// The rare case: past the inline capacity.
    #[cold]
    #[inline(never)]
    fn push_spilled(&mut self, m: Move) {
        if self.spill.is_none() {
            self.spill = Some(self.inline().to_vec());
        }
        if let Some(spill) = &mut self.spill {
            spill.push(m);
            self.len = spill.len();
        }
    }

    /// The moves stored inline (all of them while there is no spill).
    #[inline]
    fn inline(&self) -> &[Move] {
        let n = self.len.min(MAX_MOVES);
        // SAFETY: the first `n` entries were written by `push`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), n) }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
        self.spill = None;
    }

    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        match &self.spill {
            // SAFETY: without a spill, `len <= MAX_MOVES` entries were
            // written inline by `push`.
            None => unsafe {
                std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len)
            },
            Some(spill) => spill,
        }
    }

    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        match &mut self.spill {
            // SAFETY: as in `as_slice`.
            None => unsafe {
                std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), self.len)
            },
            Some(spill) => spill,
        }
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Point {
        s.parse().unwrap()
    }

    #[test]
    fn step_index_and_removal_flag() {
        let mut seen = std::collections::HashSet::new();
        for to in Point::ALL {
            let mut steps = vec![Move::place(to)];
            steps.extend(
                Point::ALL
                    .iter()
                    .filter(|&&f| f != to)
                    .map(|&f| Move::slide(f, to)),
            );
            for step in steps {
                assert!(step.step_index() < 1024);
                assert!(seen.insert(step.step_index()), "{step}");
                assert!(!step.has_removal());
                let with = step.with_removal(p("a1"));
                assert!(with.has_removal());
                assert_eq!(with.step_index(), step.step_index());
            }
        }
        assert!(Move::remove_only(p("g7")).has_removal());
    }

    #[test]
    fn notation_round_trips() {
        for text in [
            "d6",
            "d6-d5",
            "c3-g7",
            "d6xb4",
            "d6-d5xb4",
            "d6xb4xa1",
            "xb4",
            "a1xa4xa7xd7",
        ] {
            let m: Move = text.parse().unwrap();
            assert_eq!(m.to_string(), text);
            assert_eq!(Move::from_raw(m.raw()), Some(m));
        }
        assert_eq!("D6-D5XB4".parse::<Move>().unwrap().to_string(), "d6-d5xb4");
    }

    #[test]
    fn fields() {
        let m: Move = "d6-d5xb4".parse().unwrap();
        assert_eq!(m.from(), Some(p("d6")));
        assert_eq!(m.to(), Some(p("d5")));
        assert_eq!(m.removals().collect::<Vec<_>>(), vec![p("b4")]);
        assert_eq!(m.step(), Move::slide(p("d6"), p("d5")));
        assert_eq!(m.step_text(), "d6-d5");
        assert!(!m.is_placement());
        let r: Move = "xb4".parse().unwrap();
        assert_eq!(r.to(), None);
        assert_eq!(r.step_text(), "xb4");
    }

    #[test]
    fn parse_errors_name_the_problem() {
        assert_eq!("".parse::<Move>(), Err(MoveParseError::Empty));
        assert_eq!(
            "x".parse::<Move>().unwrap_err(),
            MoveParseError::BadPoint {
                text: "x".into(),
                source: PointParseError("".into())
            }
        );
        assert!(matches!(
            "d4".parse::<Move>(),
            Err(MoveParseError::BadPoint { .. })
        ));
        assert!(matches!(
            "d6-".parse::<Move>(),
            Err(MoveParseError::BadPoint { .. })
        ));
        assert!(matches!(
            "d6--d5".parse::<Move>(),
            Err(MoveParseError::BadPoint { .. })
        ));
        assert_eq!(
            "d6-d6".parse::<Move>(),
            Err(MoveParseError::SamePoint("d6-d6".into()))
        );
        assert_eq!(
            "d6xa1xa1".parse::<Move>(),
            Err(MoveParseError::RepeatedRemoval("d6xa1xa1".into()))
        );
        assert_eq!(
            "d6xa1xa4xa7xd7".parse::<Move>(),
            Err(MoveParseError::TooManyRemovals("d6xa1xa4xa7xd7".into()))
        );
    }

    #[test]
    fn from_raw_rejects_non_moves() {
        assert_eq!(Move::from_raw(0), None);
        assert_eq!(Move::from_raw(u32::MAX), None);
        // No step and no removal.
        assert_eq!(
            Move::from_raw(31 | 31 << 5 | 31 << 10 | 31 << 15 | 31 << 20),
            None
        );
        // A from without a to.
        assert_eq!(
            Move::from_raw(31 | 3 << 5 | 31 << 10 | 31 << 15 | 31 << 20),
            None
        );
    }

    #[test]
    fn move_list_pushes_and_reads() {
        let mut list = MoveList::new();
        assert!(list.is_empty());
        list.push(Move::place(p("a1")));
        list.push(Move::place(p("d7")));
        assert_eq!(list.len(), 2);
        assert!(list.contains(Move::place(p("d7"))));
        assert!(!list.contains(Move::place(p("g7"))));
    }

    #[test]
    fn move_list_grows_past_its_inline_capacity() {
        let mut list = MoveList::new();
        let moves: Vec<Move> = (0..3 * MAX_MOVES)
            .map(|i| {
                let to = Point::ALL[i % 24];
                let from = Point::ALL[(i / 24) % 24];
                Move::place(to).with_removal(from)
            })
            .collect();
        for (i, &m) in moves.iter().enumerate() {
            list.push(m);
            assert_eq!(list.len(), i + 1);
        }
        assert_eq!(list.as_slice(), &moves[..]);
        list.as_mut_slice().reverse();
        assert_eq!(list.iter().next(), moves.last());
        list.clear();
        assert!(list.is_empty() && list.as_slice().is_empty());
        list.push(moves[0]);
        assert_eq!(list.as_slice(), &moves[..1]);
    }
}

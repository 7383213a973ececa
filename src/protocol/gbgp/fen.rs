//! GBGP's position string, as Nine Morris 3D writes it:
//! `<side>:w<points>:b<points>:<fullmove>`, e.g. `w:wb4,c4:bd2:2`. The two
//! piece lists may come in either order. There are no hands: they follow
//! from the ply count, `plies = 2 * (fullmove - 1) + (1 if Black is to
//! move)`; White has placed `ceil(plies / 2)` pieces and Black
//! `floor(plies / 2)`, and placing lasts while some are left in hand.

use crate::core::fen::{FenAction, FenError, FenPhase, Setup};
use crate::core::{Bitboard, Color, Point, Position, Rules};

/// What is wrong with a GBGP position string.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GbgpFenError {
    #[error("position `{0}` must be `<w|b>:w<points>:b<points>:<fullmove>`")]
    Shape(String),
    #[error("side to move `{0}` must be `w` or `b`")]
    Side(String),
    #[error("piece list `{0}` must start with `w` or `b`, then points separated by commas")]
    PieceList(String),
    #[error("both piece lists are for {0}")]
    SameColor(Color),
    #[error("`{0}` is not a point")]
    Point(String),
    #[error("{0} is given twice")]
    Repeated(Point),
    #[error("full-move number `{0}` must be from 1 to 999")]
    Fullmove(String),
    #[error(
        "{color} has {on_board} pieces on the board but has placed only {placed} by move {fullmove}"
    )]
    TooManyPieces {
        color: Color,
        on_board: u32,
        placed: u32,
        fullmove: u16,
    },
    #[error(transparent)]
    Rules(#[from] FenError),
}

/// One piece list: its colour and points.
fn pieces(text: &str, seen: &mut Bitboard) -> Result<(Color, Bitboard), GbgpFenError> {
    let bad = || GbgpFenError::PieceList(text.to_string());
    let mut chars = text.chars();
    let color = match chars.next().map(|c| c.to_ascii_lowercase()) {
        Some('w') => Color::White,
        Some('b') => Color::Black,
        _ => return Err(bad()),
    };
    let rest = chars.as_str();
    let mut set = Bitboard::EMPTY;
    if !rest.is_empty() {
        for token in rest.split(',') {
            let p: Point = token
                .parse()
                .map_err(|_| GbgpFenError::Point(token.to_string()))?;
            if seen.contains(p) {
                return Err(GbgpFenError::Repeated(p));
            }
            *seen = seen.with(p);
            set = set.with(p);
        }
    }
    Ok((color, set))
}

/// Reads a GBGP position string into a position under `rules` (whose
/// piece count sets the hands).
pub fn parse(text: &str, rules: &Rules) -> Result<Position, GbgpFenError> {
    let fields: Vec<&str> = text.split(':').collect();
    let [side, first, second, fullmove] = fields[..] else {
        return Err(GbgpFenError::Shape(text.to_string()));
    };
    let side = match side.to_ascii_lowercase().as_str() {
        "w" => Color::White,
        "b" => Color::Black,
        _ => return Err(GbgpFenError::Side(side.to_string())),
    };
    let mut seen = Bitboard::EMPTY;
    let (c1, b1) = pieces(first, &mut seen)?;
    let (c2, b2) = pieces(second, &mut seen)?;
    if c1 == c2 {
        return Err(GbgpFenError::SameColor(c1));
    }
    let mut board = [Bitboard::EMPTY; 2];
    board[c1.index()] = b1;
    board[c2.index()] = b2;
    let bad_fullmove = || GbgpFenError::Fullmove(fullmove.to_string());
    let fullmove: u16 = if (1..=3).contains(&fullmove.len()) {
        fullmove.parse().map_err(|_| bad_fullmove())?
    } else {
        return Err(bad_fullmove());
    };
    if fullmove == 0 {
        return Err(bad_fullmove());
    }
    let plies = 2 * (fullmove as u32 - 1) + u32::from(side == Color::Black);
    let placed = [plies.div_ceil(2), plies / 2].map(|p| p.min(rules.pieces as u32));
    let mut in_hand = [0u8; 2];
    for c in Color::ALL {
        let i = c.index();
        let on_board = board[i].count();
        if on_board > placed[i] {
            return Err(GbgpFenError::TooManyPieces {
                color: c,
                on_board,
                placed: placed[i],
                fullmove,
            });
        }
        in_hand[i] = rules.pieces - placed[i] as u8;
    }
    let placing = in_hand.iter().any(|&h| h > 0);
    let setup = Setup {
        board,
        marked: Bitboard::EMPTY,
        side,
        phase: if placing {
            FenPhase::Placing
        } else {
            FenPhase::Moving
        },
        action: if in_hand[side.index()] > 0 {
            FenAction::Place
        } else {
            FenAction::Select
        },
        on_board: [board[0].count() as u8, board[1].count() as u8],
        in_hand,
        to_remove: [0, 0],
        last_mill: [None; 4],
        formed: [Bitboard::EMPTY; 2],
        rule50: 0,
        fullmove,
        blocked_removal: false,
    };
    Ok(Position::from_setup(&setup, rules)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;

    #[test]
    fn the_start_and_the_readme_example() {
        let nine = Variant::Nine.rules();
        assert_eq!(parse("w:w:b:1", &nine).unwrap(), Position::startpos(&nine));
        // Three plies played: Black to move, White 7 in hand, Black 8.
        let pos = parse("b:wb4,c4:bd2:2", &nine).unwrap();
        assert_eq!(pos.side_to_move(), Color::Black);
        assert_eq!(pos.pieces(Color::White).count(), 2);
        assert_eq!(pos.in_hand(Color::White), 7);
        assert_eq!(pos.in_hand(Color::Black), 8);
        // The lists in the other order.
        assert_eq!(parse("b:bd2:wb4,c4:2", &nine).unwrap(), pos);
        // `w:wb4,c4:bd2:2`, the example of `shared/gbgp/README.md`, gives
        // White two pieces on the board after placing one (two plies): no
        // game reaches it.
        assert!(matches!(
            parse("w:wb4,c4:bd2:2", &nine),
            Err(GbgpFenError::TooManyPieces { .. })
        ));
    }

    #[test]
    fn hands_follow_from_the_move_number() {
        let nine = Variant::Nine.rules();
        // Ply 17: Black places its last piece.
        let pos = parse("b:wa7,d7,g7:ba1,d1,g1:9", &nine).unwrap();
        assert_eq!(
            (pos.in_hand(Color::White), pos.in_hand(Color::Black)),
            (0, 1)
        );
        assert!(pos.is_placing());
        // Ply 18 and later: moving.
        let pos = parse("w:wa7,d7,g7:ba1,d1,g1:10", &nine).unwrap();
        assert!(!pos.is_placing());
        let twelve = Variant::Twelve.rules();
        let pos = parse("w:wa7,d7,g7:ba1,d1,g1:10", &twelve).unwrap();
        assert_eq!(pos.in_hand(Color::White), 3);
    }

    type Check = fn(&GbgpFenError) -> bool;

    #[test]
    fn malformed_strings_say_what_is_wrong() {
        let nine = Variant::Nine.rules();
        let cases: &[(&str, Check)] = &[
            ("w:w:b", |e| matches!(e, GbgpFenError::Shape(_))),
            ("w:w:b:1:2", |e| matches!(e, GbgpFenError::Shape(_))),
            ("x:w:b:1", |e| matches!(e, GbgpFenError::Side(_))),
            ("w:xa1:b:1", |e| matches!(e, GbgpFenError::PieceList(_))),
            ("w:w:w:1", |e| matches!(e, GbgpFenError::SameColor(_))),
            ("w:wz9:b:1", |e| matches!(e, GbgpFenError::Point(_))),
            ("w:wa1,:b:1", |e| matches!(e, GbgpFenError::Point(_))),
            ("w:wa1:ba1:2", |e| matches!(e, GbgpFenError::Repeated(_))),
            ("w:w:b:0", |e| matches!(e, GbgpFenError::Fullmove(_))),
            ("w:w:b:1000", |e| matches!(e, GbgpFenError::Fullmove(_))),
            ("w:w:b:-1", |e| matches!(e, GbgpFenError::Fullmove(_))),
            ("w:wa1,a4:b:2", |e| {
                matches!(e, GbgpFenError::TooManyPieces { .. })
            }),
        ];
        for (text, is_expected) in cases {
            let err = parse(text, &nine).unwrap_err();
            assert!(is_expected(&err), "`{text}`: {err}");
        }
    }
}

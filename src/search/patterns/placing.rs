//! The placing phase's line patterns (Nine Men's Morris), fitted to the
//! placing databases' values by `scripts/placing_patterns.py` over 56044
//! positions of 5854 games (held-out error 0.0506; a constant:
//! 0.0842). Centipieces, for the side to move.

/// By class of line (outer and inner sides, middle sides, cross lines)
/// and configuration `a * 9 + b * 3 + c` of its points in order (0 empty,
/// 1 the side to move's, 2 the other's).
pub const LINE: [[i16; 27]; 3] = [
    [
        10, 3, 12, 59, 146, 77, -47, -81, -75, 3, 151, -8, 146, -22, -210, -81, -297, 237, 12, -8,
        -23, 77, -210, 319, -75, 237, 44,
    ],
    [
        -2, 4, -1, 66, 215, 85, -55, -90, -124, 4, 284, -23, 215, 73, -165, -90, -264, 173, -1,
        -23, -67, 85, -165, 267, -124, 173, -53,
    ],
    [
        18, 24, 17, 62, 310, 61, -42, -63, -94, 24, 305, 4, 310, 277, -136, -63, -145, 169, 17, 4,
        -56, 61, -136, 174, -94, 169, -228,
    ],
];

/// By the side to move's pieces in hand and the other's.
pub const HAND: [[i16; 10]; 10] = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [-57, -7, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 3, -5, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 17, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 32, 3, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 39, 2, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 35, 10, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 17, -52, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
];

/// A piece more, on the board or in hand.
pub const MATERIAL: i32 = 208;

pub const BIAS: i32 = -5;

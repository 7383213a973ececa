//! The placing phase's line patterns for the twelve-piece rule sets with
//! diagonals scored with Twelve's weights (Twelve Men's Morris, Morabaraba,
//! Zhi Qi), fitted to the results of self-play games (`mulino match`, 30,000
//! nodes a move, random 6-ply openings; the README names the builds) by
//! `scripts/twelve_patterns.py` over 64705 positions of 9000 games
//! (held-out error 0.0669; a constant: 0.2311).
//! Centipieces, for the side to move.

/// By class of line (outer and inner sides, middle sides, cross lines,
/// diagonals) and configuration `a * 9 + b * 3 + c` of its points in order
/// (0 empty, 1 the side to move's, 2 the other's).
pub const LINE: [[i16; 27]; 4] = [
    [
        7, 30, -21, 6, 113, -37, 4, 33, -51, 30, 100, -3, 113, 27, -92, 33, -21, 90, -21, -3, -79,
        -37, -92, 17, -51, 90, -20,
    ],
    [
        10, 45, -32, 8, 152, -38, 1, 32, -57, 45, 119, 0, 152, 63, -70, 32, -7, 67, -32, 0, -90,
        -38, -70, 2, -57, 67, -57,
    ],
    [
        6, -2, 7, 9, 67, 3, 1, -7, -57, -2, 63, -2, 67, -22, -89, -7, -77, 88, 7, -2, -55, 3, -89,
        79, -57, 88, 29,
    ],
    [
        7, 29, -22, 43, 146, 25, -40, -30, -85, 29, 143, -1, 146, 68, -36, -30, -49, 40, -22, -1,
        -73, 25, -36, 55, -85, 40, -60,
    ],
];

/// By the side to move's pieces in hand and the other's.
pub const HAND: [[i16; 13]; 13] = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [-97, 90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, -82, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, -78, 102, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, -74, 94, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, -69, 89, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, -73, 82, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, -82, 75, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, -93, 73, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, -116, 55, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
];

/// A piece more, on the board or in hand.
pub const MATERIAL: i32 = 89;

pub const BIAS: i32 = 1;

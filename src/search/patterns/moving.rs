//! The moving phase's patterns (Nine Men's Morris), fitted to the moving
//! databases' values by `scripts/moving_patterns.py` over 89968
//! positions of 5854 games (held-out error 0.0326; a constant:
//! 0.0754). Centipieces, for the side to move.

/// By class of line and configuration, as in `placing.rs`.
pub const LINE: [[i16; 27]; 3] = [
    [
        -3, 108, -102, 97, 204, 22, -89, -10, -216, 108, 170, 42, 204, 130, 22, -10, -31, 4, -102,
        42, -154, 22, 22, 56, -216, 4, -250,
    ],
    [
        4, 115, -104, 85, 201, 13, -84, -15, -198, 115, 223, 33, 201, 189, 68, -15, -17, -32, -104,
        33, -188, 13, 68, -3, -198, -32, -290,
    ],
    [
        0, 98, -84, 100, 194, 27, -71, -19, -172, 98, 169, 28, 194, 270, 100, -19, 18, -95, -84,
        28, -142, 27, 100, -26, -172, -95, -255,
    ],
];

/// By the side to move's pieces on the board and the other's.
pub const MATERIAL: [[i16; 10]; 10] = [
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, -78, 91, 314, -650, -533, -335],
    [0, 0, 0, 0, -200, -54, 82, -341, -719, -452],
    [0, 0, 0, 0, -429, -116, -35, -136, -596, -509],
    [0, 0, 0, 0, 590, 307, 162, -11, -265, -592],
    [0, 0, 0, 0, 698, 739, 543, 195, -14, -196],
    [0, 0, 0, 0, 489, 642, 711, 257, 63, -169],
];

/// By the side to move's steps (14 or more: 14).
pub const OUR_MOBILITY: [i16; 15] = [
    0, -465, -348, -181, -54, 0, 38, 53, 67, 74, 70, 66, 78, 91, 135,
];

/// By the other side's steps.
pub const THEIR_MOBILITY: [i16; 15] = [
    0, 418, 322, 217, 120, 72, 30, -9, -28, -54, -65, -78, -111, -134, -172,
];

/// The side to move can close a mill with a step.
pub const WE_CLOSE: i32 = 126;

/// The other side could close a mill with a step.
pub const THEY_CLOSE: i32 = -114;

pub const BIAS: i32 = -1;

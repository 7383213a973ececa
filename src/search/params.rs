//! Every tunable number of the search and the evaluation, in one place.

use crate::core::rules::PlacingMill;
use crate::core::{Color, Position, Rules};

/// The phases with weights of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// A hand is not empty.
    Placing,
    /// Both hands empty and no side may fly.
    Moving,
    /// Both hands empty and a side may fly.
    Flying,
}

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Placing, Phase::Moving, Phase::Flying];

    /// The phase of `pos`.
    #[inline]
    pub fn of(pos: &Position, rules: &Rules) -> Phase {
        if pos.in_hand(Color::White) > 0 || pos.in_hand(Color::Black) > 0 {
            Phase::Placing
        } else if Color::ALL.iter().any(|&c| pos.can_fly(rules, c)) {
            Phase::Flying
        } else {
            Phase::Moving
        }
    }

    /// Its weights under `rules` ([`WeightSet`]).
    #[inline]
    pub fn weights(self, rules: &Rules) -> &'static EvalWeights {
        WeightSet::of(rules).weights(self)
    }

    /// The name of its weights in this module.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Placing => "PLACING",
            Phase::Moving => "MOVING",
            Phase::Flying => "FLYING",
        }
    }
}

/// The value of one piece (the unit of `score cp`).
pub const PIECE: i32 = 100;

/// Evaluation weights, by phase where it matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalWeights {
    /// A piece in hand, relative to one on the board, while placing.
    pub in_hand: i32,
    /// Each own line with two pieces and the third point empty.
    pub open_mill: i32,
    /// An open mill the side to move can close now (in effect a capture).
    pub closable_now: i32,
    /// Each empty point that would close two mills at once.
    pub double_threat: i32,
    /// Each point a piece can slide to.
    pub mobility: i32,
    /// Each piece with nowhere to slide.
    pub blocked: i32,
    /// A "running mill": a piece that opens one mill and closes another
    /// by sliding back and forth.
    pub running_mill: i32,
    /// Each closed mill standing on the board.
    pub closed_mill: i32,
    /// Being the side to move.
    pub tempo: i32,
    /// The opponent can close a mill at two or more points next turn and
    /// the side to move can close none: one block will not stop it.
    pub unstoppable_threat: i32,
    /// Where placing mills remove nothing until placing ends and then
    /// remove by mill counts (El Filja): having more closed mills than
    /// the opponent, which is worth one removal more.
    pub mill_majority: i32,
}

impl EvalWeights {
    /// How many weights there are.
    pub const COUNT: usize = 11;

    /// The weights' names, in the order of [`EvalWeights::to_array`].
    pub const NAMES: [&'static str; EvalWeights::COUNT] = [
        "in_hand",
        "open_mill",
        "closable_now",
        "double_threat",
        "mobility",
        "blocked",
        "running_mill",
        "closed_mill",
        "tempo",
        "unstoppable_threat",
        "mill_majority",
    ];

    /// The weights in the order of [`EvalWeights::NAMES`].
    pub const fn to_array(&self) -> [i32; EvalWeights::COUNT] {
        [
            self.in_hand,
            self.open_mill,
            self.closable_now,
            self.double_threat,
            self.mobility,
            self.blocked,
            self.running_mill,
            self.closed_mill,
            self.tempo,
            self.unstoppable_threat,
            self.mill_majority,
        ]
    }

    /// The weights from an array in the order of [`EvalWeights::NAMES`].
    pub const fn from_array(a: [i32; EvalWeights::COUNT]) -> EvalWeights {
        EvalWeights {
            in_hand: a[0],
            open_mill: a[1],
            closable_now: a[2],
            double_threat: a[3],
            mobility: a[4],
            blocked: a[5],
            running_mill: a[6],
            closed_mill: a[7],
            tempo: a[8],
            unstoppable_threat: a[9],
            mill_majority: a[10],
        }
    }
}

pub const PLACING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 22,
    closable_now: 70,
    double_threat: 40,
    mobility: 9,
    blocked: 15,
    running_mill: 0,
    closed_mill: 8,
    tempo: 8,
    unstoppable_threat: 60,
    mill_majority: 200,
};

/// The moving and flying weights were fitted by `mulino tune` to the
/// databases' values of 74,000 positions of 2,062 games (Nine Men's
/// Morris), the scale with them; the piece stays at 100.
pub const MOVING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 61,
    closable_now: 186,
    double_threat: 113,
    mobility: 31,
    blocked: 46,
    running_mill: 169,
    closed_mill: 174,
    tempo: -3,
    unstoppable_threat: 124,
    mill_majority: 0,
};

/// The flying weights `mulino tune` fitted to Nine's databases, kept as
/// the record of that fit: no set plays with them (see [`NINE_FLYING`]).
pub const FLYING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 34,
    closable_now: 1,
    double_threat: 59,
    mobility: -20,
    blocked: 59,
    running_mill: 471,
    closed_mill: 33,
    tempo: 9,
    unstoppable_threat: 62,
    mill_majority: 0,
};

/// Nine Men's Morris's flying weights (and those of the rule sets scored
/// with its set): the hand-set weights FLYING had before it was fitted to
/// the databases' values. Fitted weights score every won position alike,
/// and with them the search stopped finding the moves that make progress
/// in won endgames with a side of three pieces: the endgame benchmark
/// (`mulino endgames`, docs/performance.md) keeps 294 of its 300
/// positions' values with these at 100,000 nodes, 277 with FLYING's.
pub const NINE_FLYING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 25,
    closable_now: 70,
    double_threat: 60,
    mobility: 0,
    blocked: 0,
    running_mill: 0,
    closed_mill: 5,
    tempo: 10,
    unstoppable_threat: 60,
    mill_majority: 0,
};

/// The rule sets whose evaluation has weights of its own; every other
/// rule set is scored with Nine Men's Morris's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightSet {
    Nine,
    /// Twelve pieces with diagonals, placing mills that remove from the
    /// board, White first when placing ends (Twelve Men's Morris,
    /// Morabaraba and Zhi Qi).
    Twelve,
    /// The same, but placing mills take from the opponent's hand (Dooz).
    Dooz,
    /// A move instead of a placement allowed, no diagonals (Lasker).
    Lasker,
    /// Placing mills mark points that stay shut until placing ends, and
    /// the defender moves first then (Da San Qi).
    DaSanQi,
    /// Placing mills remove nothing until placing ends, and then remove by
    /// the sides' mill counts (El Filja).
    ElFilja,
    /// Placing mills that remove from the board, Black first when placing
    /// ends (Experimental, which also has twelve pieces, diagonals and
    /// two removals on a full board).
    Experimental,
    /// Nine Men's Morris with one-time mills (Russian Mill): a mill earns a
    /// removal only the first time it is formed.
    Russian,
}

impl WeightSet {
    /// Every set, in the order of their discriminants.
    pub const ALL: [WeightSet; 8] = [
        WeightSet::Nine,
        WeightSet::Twelve,
        WeightSet::Dooz,
        WeightSet::Lasker,
        WeightSet::DaSanQi,
        WeightSet::ElFilja,
        WeightSet::Experimental,
        WeightSet::Russian,
    ];

    /// The weights that score `rules`.
    #[inline]
    pub fn of(rules: &Rules) -> WeightSet {
        let plain = !rules.one_time_mills && !rules.defender_moves_first;
        let twelve_board = plain && rules.pieces == 12 && rules.diagonals && !rules.move_in_placing;
        let lasker = plain
            && !rules.blocked_removes
            && !rules.has_placing_end_removals()
            && rules.move_in_placing
            && !rules.diagonals;
        let russian = rules.one_time_mills
            && !rules.defender_moves_first
            && rules.pieces == 9
            && !rules.diagonals
            && !rules.move_in_placing;
        match rules.placing_mill {
            PlacingMill::MarkAndDelay => WeightSet::DaSanQi,
            PlacingMill::ByMillCounts => WeightSet::ElFilja,
            PlacingMill::RemoveFromBoard if rules.defender_moves_first => WeightSet::Experimental,
            PlacingMill::RemoveFromBoard if twelve_board => WeightSet::Twelve,
            PlacingMill::RemoveFromHand if twelve_board => WeightSet::Dooz,
            PlacingMill::RemoveFromBoard if lasker => WeightSet::Lasker,
            PlacingMill::RemoveFromBoard if russian => WeightSet::Russian,
            _ => WeightSet::Nine,
        }
    }

    /// Its weights of `phase`.
    #[inline]
    pub fn weights(self, phase: Phase) -> &'static EvalWeights {
        &WEIGHT_SETS[self as usize][phase as usize]
    }
}

/// Each `WeightSet`'s weights (in its order) by `Phase` (in its order).
/// Every set flies with the hand-set [`NINE_FLYING`]: the weights fitted
/// to Nine's databases ([`FLYING`]) lost won endgames in Twelve, Dooz and
/// Lasker as they did in Nine (docs/performance.md, "Endgames"), and the
/// fits of the other sets' own flying phases gained little on held-out
/// games (below). Rule sets without flying never use theirs.
static WEIGHT_SETS: [[EvalWeights; 3]; WeightSet::ALL.len()] = [
    [PLACING, MOVING, NINE_FLYING],
    [TWELVE_PLACING, TWELVE_MOVING, NINE_FLYING],
    [DOOZ_PLACING, DOOZ_MOVING, NINE_FLYING],
    [LASKER_PLACING, LASKER_MOVING, NINE_FLYING],
    [DA_SAN_QI_PLACING, DA_SAN_QI_MOVING, NINE_FLYING],
    [EL_FILJA_PLACING, EL_FILJA_MOVING, NINE_FLYING],
    [EXPERIMENTAL_PLACING, EXPERIMENTAL_MOVING, NINE_FLYING],
    [RUSSIAN_PLACING, RUSSIAN_MOVING, NINE_FLYING],
];

/// Russian Mill's placing weights, fitted as Twelve's (3,000 self-play
/// games of Russian Mill at 30,000 and 33,000 nodes, seed 211), over line
/// features that leave out the mills each side has already formed once
/// (they earn nothing when closed again): held-out error 0.1142 -> 0.1017
/// from Nine's weights. The placing phase is scored by its patterns
/// (`patterns/russian.rs`); these placing weights are the tuner's
/// starting point and the scale the patterns share.
pub const RUSSIAN_PLACING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 72,
    closable_now: 43,
    double_threat: 266,
    mobility: 119,
    blocked: 94,
    running_mill: -112,
    closed_mill: 16,
    tempo: 93,
    unstoppable_threat: 20,
    mill_majority: 200,
};

/// Russian Mill's moving weights, fitted to a deeper search's scores
/// rather than to games' results (`mulino tune --scores`: 10,000 moving
/// positions of self-play games and games against Sanmill, each scored by
/// a 700,000-node search; docs/evaluation.md), with the cramp of a side
/// short of moves (`patterns::CRAMP`, from Nine's databases) added to
/// them: held-out error 0.0227 -> 0.0202. The self-play fit to results
/// (seed 211) that came before valued a closed mill at 79 and the threats
/// at 54 and 178; the deeper search at 10, 117 and 80.
pub const RUSSIAN_MOVING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 37,
    closable_now: 129,
    double_threat: 117,
    mobility: 27,
    blocked: 17,
    running_mill: 116,
    closed_mill: 10,
    tempo: 6,
    unstoppable_threat: 80,
    mill_majority: 0,
};

/// Twelve Men's Morris's placing and moving weights, fitted by `mulino
/// tune --variant twelve --skip-plies 6 --freeze in_hand` (no databases:
/// each position labelled with its game's result) to 3,000 self-play
/// games at 30,000 nodes a move (docs/evaluation.md, "Other rule sets:
/// weights fitted to game results"). Held-out squared error,
/// placing 0.1124 -> 0.0839, moving 0.0417 -> 0.0331; the flying fit
/// (6,322 positions, 0.0186 -> 0.0165) valued a running mill at eleven
/// pieces and was not taken.
///
/// Zhi Qi is scored with them too: the same fit to 3,000 self-play games
/// of Zhi Qi came out close to them (placing: open mill 98, double threat
/// -59, mobility 59, tempo 99; moving: open mill 22, closable 92, running
/// mill 59) and no better on held-out positions (placing 0.0881 against
/// Twelve's 0.0883, moving 0.0387 against 0.0387), and they passed the
/// SPRT in Zhi Qi (docs/evaluation.md).
pub const TWELVE_PLACING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 101,
    closable_now: 34,
    double_threat: -26,
    mobility: 67,
    blocked: 20,
    running_mill: -66,
    closed_mill: 45,
    tempo: 105,
    unstoppable_threat: 17,
    mill_majority: 200,
};

pub const TWELVE_MOVING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 20,
    closable_now: 84,
    double_threat: 39,
    mobility: 5,
    blocked: 19,
    running_mill: 76,
    closed_mill: 34,
    tempo: 7,
    unstoppable_threat: 51,
    mill_majority: 0,
};

/// Dooz's, fitted as Twelve's (3,000 self-play games of Dooz): held-out
/// error, placing 0.1751 -> 0.1533, moving 0.0620 -> 0.0561. The flying
/// weights stay Nine's (0.0094 -> 0.0091).
pub const DOOZ_PLACING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 61,
    closable_now: 31,
    double_threat: -126,
    mobility: 54,
    blocked: 22,
    running_mill: -61,
    closed_mill: 128,
    tempo: 53,
    unstoppable_threat: -13,
    mill_majority: 200,
};

pub const DOOZ_MOVING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 38,
    closable_now: 138,
    double_threat: 59,
    mobility: 28,
    blocked: -1,
    running_mill: 126,
    closed_mill: 71,
    tempo: 1,
    unstoppable_threat: 48,
    mill_majority: 0,
};

/// Lasker's, fitted as Twelve's (3,000 self-play games of Lasker):
/// held-out error, placing 0.1047 -> 0.0950, moving 0.0523 -> 0.0416.
/// The flying weights stay Nine's (0.0268 -> 0.0265).
pub const LASKER_PLACING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 57,
    closable_now: 67,
    double_threat: -20,
    mobility: 30,
    blocked: 60,
    running_mill: 39,
    closed_mill: 40,
    tempo: 34,
    unstoppable_threat: 46,
    mill_majority: 200,
};

pub const LASKER_MOVING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 3,
    closable_now: 50,
    double_threat: 16,
    mobility: 1,
    blocked: 29,
    running_mill: 93,
    closed_mill: 17,
    tempo: -4,
    unstoppable_threat: 53,
    mill_majority: 0,
};

/// Da San Qi's, fitted as Twelve's (3,000 self-play games of Da San
/// Qi, whatever its other rules: the set follows the marks): held-out
/// error, placing 0.2297 -> 0.2221, moving 0.0610 -> 0.0589. It never
/// flies.
pub const DA_SAN_QI_PLACING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 43,
    closable_now: 67,
    double_threat: 101,
    mobility: 49,
    blocked: 26,
    running_mill: -72,
    closed_mill: -17,
    tempo: 30,
    unstoppable_threat: -8,
    mill_majority: 200,
};

pub const DA_SAN_QI_MOVING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 61,
    closable_now: 191,
    double_threat: 77,
    mobility: 25,
    blocked: 5,
    running_mill: 154,
    closed_mill: 107,
    tempo: 10,
    unstoppable_threat: 99,
    mill_majority: 0,
};

/// El Filja's, fitted as Twelve's (3,000 self-play games of El Filja):
/// held-out error, placing 0.1958 -> 0.1671, moving 0.0771 -> 0.0698.
/// A closed mill counts for more than two pieces while placing, as each
/// one weighs in the removals when placing ends. The moving fit's
/// majority (-4) is left at 0: the majority means nothing once placing
/// has ended. It never flies.
pub const EL_FILJA_PLACING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 84,
    closable_now: 47,
    double_threat: 51,
    mobility: 50,
    blocked: -9,
    running_mill: 95,
    closed_mill: 249,
    tempo: 60,
    unstoppable_threat: 6,
    mill_majority: 59,
};

pub const EL_FILJA_MOVING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 29,
    closable_now: 123,
    double_threat: 78,
    mobility: 25,
    blocked: 8,
    running_mill: 96,
    closed_mill: 79,
    tempo: 5,
    unstoppable_threat: 69,
    mill_majority: 0,
};

/// Experimental's, fitted as Twelve's (3,000 self-play games of
/// Experimental): held-out error, placing 0.2104 -> 0.2084, moving
/// 0.0511 -> 0.0468. It never flies.
pub const EXPERIMENTAL_PLACING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 39,
    closable_now: 20,
    double_threat: 8,
    mobility: 16,
    blocked: 22,
    running_mill: -62,
    closed_mill: -23,
    tempo: 29,
    unstoppable_threat: 0,
    mill_majority: 200,
};

pub const EXPERIMENTAL_MOVING: EvalWeights = EvalWeights {
    in_hand: 100,
    open_mill: 54,
    closable_now: 174,
    double_threat: 86,
    mobility: 28,
    blocked: 2,
    running_mill: 131,
    closed_mill: 94,
    tempo: 8,
    unstoppable_threat: 76,
    mill_majority: 0,
};

/// Aspiration window half-width at the start, in cp.
pub const ASPIRATION_WINDOW: i32 = 30;
/// Depth from which aspiration windows are used.
pub const ASPIRATION_MIN_DEPTH: i32 = 4;
/// Late-move reductions: first move index and minimum depth.
pub const LMR_MIN_MOVES: usize = 3;
pub const LMR_MIN_DEPTH: i32 = 3;
/// Reverse futility pruning: at non-PV nodes up to this depth, a static
/// evaluation this far (per ply of depth) above beta cuts off.
pub const RFP_MAX_DEPTH: i32 = 3;
pub const RFP_MARGIN: i32 = 90;
/// Singular extension: at a node at least this deep whose table move
/// has a lower bound from at most `SE_DEPTH_SLACK` plies shallower, the
/// other moves are searched to half the depth against the stored score
/// less `SE_MARGIN` per ply; if none reaches it, the table move is
/// searched a ply deeper.
pub const SE_MIN_DEPTH: i32 = 6;
pub const SE_DEPTH_SLACK: i32 = 3;
pub const SE_MARGIN: i32 = 4;
/// Late move pruning: at non-PV nodes up to this depth, quiet moves
/// after the first few are skipped unless they make a threat.
pub const LMP_MAX_DEPTH: i32 = 3;
/// Quiescence: how many plies of mill-closing moves to follow.
pub const QS_MAX_PLY: i32 = 6;
/// With databases: a leaf of the placing phase with at most this many
/// pieces left in both hands together is searched on to the end of
/// placing, where the databases know the value.
pub const TB_PLACING_HORIZON: u32 = 1;
/// While placing, a block of the opponent's only threat is searched a ply
/// deeper.
pub const BLOCK_EXTENSION: bool = true;
/// Nodes between two looks at the clock.
pub const CHECK_EVERY: u64 = 1024;

/// Move-ordering tiers.
pub const ORDER_TT: i32 = 1 << 28;
pub const ORDER_MILL: i32 = 1 << 24;
pub const ORDER_BLOCK: i32 = 1 << 22;
pub const ORDER_KILLER: i32 = 1 << 20;
/// History scores are kept below this.
pub const HISTORY_MAX: i32 = 1 << 16;

/// Time management.
pub struct TimeParams {
    /// Moves still to play assumed when the GUI does not say.
    pub moves_to_go_moving: u64,
    /// The share of the clock (percent) that a whole placing phase may
    /// use under sudden death, the rest kept for a moving phase of
    /// `moves_to_go_moving` moves; with databases in use, whose moving
    /// phase costs next to nothing, the larger share.
    pub placing_share_pct: u64,
    pub placing_share_db_pct: u64,
    /// Extra share of the clock while placing when the GUI gives the
    /// moves to go (percent of the base).
    pub placing_bonus_pct: u64,
    /// The most of the remaining time one move may take (percent).
    pub max_share_pct: u64,
    /// The soft limit may stretch this many times for the hard one.
    pub hard_factor: u64,
}

pub const TIME: TimeParams = TimeParams {
    moves_to_go_moving: 30,
    placing_share_pct: 50,
    placing_share_db_pct: 70,
    placing_bonus_pct: 150,
    max_share_pct: 30,
    hard_factor: 4,
};

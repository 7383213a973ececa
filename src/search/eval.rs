//! Static evaluation, from the side to move's point of view, in
//! centipieces (100 = one piece for the terms). Weights live in `params`;
//! the placing and moving phases of Nine Men's Morris are scored by
//! `patterns` instead, on the same logistic scale.

pub use super::features::Evaluation;
use super::features::can_close_mill;
pub use super::params::Phase;
use super::params::{EvalWeights, PIECE};
use super::patterns;
use crate::core::geometry::LineFeatures;
use crate::core::rules::PlacingMill;
use crate::core::{Bitboard, Color, Point, Position, Rules};

#[inline]
fn weights(pos: &Position, rules: &Rules) -> &'static EvalWeights {
    Phase::of(pos, rules).weights(rules)
}

/// What each weight of the evaluation multiplies in a position, from the
/// side to move's point of view (ours less theirs): the evaluation is
/// [`Terms::score`] of its phase's weights, and the tuner (`mulino
/// tune`) fits the weights to these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    /// Pieces on the board (worth [`PIECE`] each; not tuned).
    pub pieces: i32,
    pub in_hand: i32,
    pub open_mill: i32,
    pub closed_mill: i32,
    pub double_threat: i32,
    /// The points a stepping side (no hand, no flying) can slide to.
    pub mobility: i32,
    /// The same for a side that places or flies, ours and theirs apart:
    /// each counts half, rounded toward zero.
    pub half_mobility: [i32; 2],
    pub blocked: i32,
    pub running_mill: i32,
    /// -1, 0 or 1: who has more closed mills (El Filja's removals).
    pub mill_majority: i32,
    /// 1 when the side to move can close a mill now.
    pub closable_now: i32,
    /// 1 when the opponent threatens twice and the side to move can close
    /// nothing.
    pub unstoppable_threat: i32,
    /// A quarter piece: the opponent, down to three without flying, has no
    /// hand left (the search sees the end; the shade helps it get there).
    pub shade: i32,
    /// Russian mill's stepping sides with fewer than five moves: what
    /// `patterns::CRAMP` gives each, in centipieces for the side to move
    /// (not tuned).
    pub cramp: i32,
}

impl Terms {
    /// The evaluation of these terms under `w`, in centipieces.
    #[inline(always)]
    pub fn score(&self, w: &EvalWeights) -> i32 {
        self.pieces * PIECE
            + self.in_hand * w.in_hand
            + self.open_mill * w.open_mill
            + self.closed_mill * w.closed_mill
            + self.double_threat * w.double_threat
            + self.mobility * w.mobility
            + self.half_mobility[0] * w.mobility / 2
            - self.half_mobility[1] * w.mobility / 2
            - self.blocked * w.blocked
            + self.running_mill * w.running_mill
            + w.tempo
            + self.mill_majority * w.mill_majority
            + self.closable_now * w.closable_now
            - self.unstoppable_threat * w.unstoppable_threat
            + self.shade * PIECE / 4
            + self.cramp
    }

    /// What each weight multiplies, in the order of
    /// [`EvalWeights::NAMES`] (the half mobility as an exact half), and
    /// the part no weight moves.
    pub fn linear(&self) -> ([f64; EvalWeights::COUNT], f64) {
        let half = (self.half_mobility[0] - self.half_mobility[1]) as f64 / 2.0;
        let f = [
            self.in_hand as f64,
            self.open_mill as f64,
            self.closable_now as f64,
            self.double_threat as f64,
            self.mobility as f64 + half,
            -self.blocked as f64,
            self.running_mill as f64,
            self.closed_mill as f64,
            1.0,
            -self.unstoppable_threat as f64,
            self.mill_majority as f64,
        ];
        let fixed = (self.pieces * PIECE + self.shade * PIECE / 4 + self.cramp) as f64;
        (f, fixed)
    }
}

/// One side's share of the terms, added with `sign` (1 ours, -1 theirs).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn side_terms(
    t: &mut Terms,
    sign: i32,
    pos: &Position,
    rules: &Rules,
    c: Color,
    f: &LineFeatures,
    blocked: Bitboard,
    mobility: u32,
) {
    let own = pos.pieces(c);
    t.pieces += sign * own.count() as i32;
    t.in_hand += sign * pos.in_hand(c) as i32;
    t.open_mill += sign * f.open as i32;
    t.closed_mill += sign * f.closed as i32;
    t.double_threat += sign * f.double_closers.count() as i32;
    if pos.in_hand(c) == 0 && !pos.can_fly(rules, c) {
        // Running mills: pieces of a closed mill that can step out to a
        // point where they complete another line (two count at most).
        t.running_mill += sign * f.runners().count().min(2) as i32;
        t.blocked += sign * (own & blocked).count() as i32;
        t.mobility += sign * mobility as i32;
        if rules.one_time_mills {
            // With one-time mills the moving phase is mostly a fight for
            // room: the last few moves before a blockade cost what Nine's
            // databases say they do (the linear weights of Russian mill's
            // moving phase were fitted with this part in place).
            t.cramp += patterns::CRAMP[usize::from(sign < 0)][mobility.min(5) as usize];
        }
    } else {
        t.half_mobility[usize::from(sign < 0)] = mobility as i32;
    }
}

/// Whether `c`, whose line features are `f`, can close a mill next turn
/// at two or more points: a single block does not stop that.
#[inline]
fn threatens_twice(pos: &Position, rules: &Rules, c: Color, f: &LineFeatures) -> bool {
    f.closers.count() >= 2 && can_close_mill(pos, rules, c, f)
}

/// The evaluation of `pos` for the side to move.
#[inline]
pub fn evaluate(pos: &Position, rules: &Rules) -> i32 {
    evaluate_full(pos, rules).score
}

/// The evaluation of `pos` for the side to move, with its by-products.
#[inline(always)]
pub fn evaluate_full(pos: &Position, rules: &Rules) -> Evaluation {
    let phase = Phase::of(pos, rules);
    if patterns::score_phase(phase, rules) {
        return patterns::evaluate_phase(pos, rules, phase);
    }
    evaluate_with(pos, rules, phase.weights(rules))
}

/// The evaluation by the weighted terms alone (every phase's weights),
/// even where `evaluate_full` uses the patterns.
pub fn evaluate_by_terms(pos: &Position, rules: &Rules) -> Evaluation {
    evaluate_with(pos, rules, weights(pos, rules))
}

/// `evaluate_full` with the given weights.
#[inline(always)]
fn evaluate_with(pos: &Position, rules: &Rules, w: &EvalWeights) -> Evaluation {
    let (terms, can_close) = terms_of(pos, rules);
    Evaluation {
        score: terms.score(w),
        can_close,
    }
}

/// The evaluation's terms in `pos`, for the side to move.
#[inline]
pub fn terms(pos: &Position, rules: &Rules) -> Terms {
    terms_of(pos, rules).0
}

/// The terms, and whether the side to move may close a mill now.
#[inline(always)]
fn terms_of(pos: &Position, rules: &Rules) -> (Terms, bool) {
    let us = pos.side_to_move();
    let them = us.opponent();
    let g = rules.geometry();
    let (ours, theirs, empty) = (pos.pieces(us), pos.pieces(them), pos.empty());
    let [fu, ft] = if rules.one_time_mills {
        // A one-time mill formed once earns nothing when closed again.
        [us, them].map(|c| g.line_features_unspent(pos.pieces(c), empty, pos.formed_mills(c)))
    } else {
        g.line_features_pair(ours, theirs, empty)
    };
    let free = free_points(pos, rules);
    let [mu, mt] = g.mobility_pair(ours, theirs, free);
    // Pieces with no empty neighbour.
    let blocked = !g.neighbours(free);
    let mut t = Terms::default();
    side_terms(&mut t, 1, pos, rules, us, &fu, blocked, mu);
    side_terms(&mut t, -1, pos, rules, them, &ft, blocked, mt);
    if rules.placing_mill == PlacingMill::ByMillCounts {
        t.mill_majority = (fu.closed as i32 - ft.closed as i32).signum();
    }
    let can_close = can_close_mill(pos, rules, us, &fu);
    if can_close {
        t.closable_now = 1;
    } else if threatens_twice(pos, rules, them, &ft) {
        t.unstoppable_threat = 1;
    }
    // A side reduced to three pieces with flying off and no move is lost;
    // the search sees it, but shading the score helps it get there.
    if pos.in_hand(them) == 0 && theirs.count() <= 3 && !pos.can_fly(rules, them) {
        t.shade = 1;
    }
    (t, can_close)
}

/// The points the mobility terms count as free: the empty ones, and
/// the marked ones where marks empty when placing ends (Da San Qi), since
/// the pieces around them will be free to move there.
#[inline]
fn free_points(pos: &Position, rules: &Rules) -> Bitboard {
    if rules.placing_mill == PlacingMill::MarkAndDelay {
        pos.empty() | pos.marked()
    } else {
        pos.empty()
    }
}

/// Opponent lines through `p` that hold two of their pieces and an empty
/// point: removing `p` breaks that many threats.
#[inline]
pub fn threats_through(rules: &Rules, p: Point, theirs: Bitboard, empty: Bitboard) -> i32 {
    let g = rules.geometry();
    g.partners[p.index()][..g.line_count[p.index()] as usize]
        .iter()
        .filter(|part| (**part & theirs).count() == 1 && (**part & empty).count() == 1)
        .count() as i32
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::core::{Move, Variant};
    use crate::search::params;

    /// Nine men's morris after these placements (the search's tests use it
    /// too).
    pub(in crate::search) fn placed(points: &[&str]) -> (Position, Rules) {
        let rules = Variant::Nine.rules();
        let mut pos = Position::startpos(&rules);
        for p in points {
            let m = Move::place(p.parse().unwrap());
            pos = pos.play(&rules, m).unwrap();
        }
        (pos, rules)
    }

    /// What the double-threat term adds to the evaluation of `pos`.
    fn threat_term(pos: &Position, rules: &Rules) -> i32 {
        let w = weights(pos, rules);
        let without = EvalWeights {
            unstoppable_threat: 0,
            ..*w
        };
        evaluate_with(pos, rules, w).score - evaluate_with(pos, rules, &without).score
    }

    #[test]
    fn the_linear_terms_give_the_evaluation_in_every_rule_set() {
        use crate::core::{MoveList, Variant};
        // Random games; every position's terms, weighted in the order of
        // the names, give the terms' evaluation (the half mobility within
        // one), the one `evaluate` uses wherever no patterns apply.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut checked = 0;
        let mut seen = [0usize; EvalWeights::COUNT];
        for variant in Variant::ALL {
            let rules = variant.rules();
            for _ in 0..40 {
                let mut pos = Position::startpos(&rules);
                let mut list = MoveList::new();
                for _ in 0..120 {
                    let w = weights(&pos, &rules);
                    let (f, fixed) = terms(&pos, &rules).linear();
                    let dot: f64 = f.iter().zip(w.to_array()).map(|(f, w)| f * w as f64).sum();
                    let score = evaluate_with(&pos, &rules, w).score as f64;
                    assert!(
                        (dot + fixed - score).abs() <= 1.0,
                        "{variant:?} {}: {dot} + {fixed} against {score}",
                        pos.fen(&rules)
                    );
                    for (n, f) in seen.iter_mut().zip(f) {
                        *n += usize::from(f != 0.0);
                    }
                    checked += 1;
                    pos.legal_moves(&rules, &mut list);
                    if list.is_empty() {
                        break;
                    }
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let m = list.as_slice()[(seed >> 33) as usize % list.len()];
                    pos = pos.play(&rules, m).unwrap();
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
        // Every term but the majority's took part somewhere (El Filja's
        // random games close few mills while placing).
        for (name, n) in EvalWeights::NAMES.iter().zip(seen) {
            assert!(n > 0 || *name == "mill_majority", "{name} never seen");
        }
    }

    #[test]
    fn each_rule_set_is_scored_by_its_weights() {
        use params::WeightSet;
        for v in Variant::ALL {
            let rules = v.rules();
            let want = match v {
                Variant::Twelve | Variant::Morabaraba | Variant::ZhiQi => WeightSet::Twelve,
                Variant::Dooz => WeightSet::Dooz,
                Variant::Lasker => WeightSet::Lasker,
                Variant::DaSanQi => WeightSet::DaSanQi,
                Variant::ElFilja => WeightSet::ElFilja,
                Variant::Experimental => WeightSet::Experimental,
                Variant::Russian => WeightSet::Russian,
                _ => WeightSet::Nine,
            };
            assert_eq!(WeightSet::of(&rules), want, "{v:?}");
            for phase in Phase::ALL {
                assert_eq!(phase.weights(&rules), want.weights(phase), "{v:?}");
            }
        }
        // `WEIGHT_SETS` is indexed by the discriminants.
        for (i, set) in WeightSet::ALL.into_iter().enumerate() {
            assert_eq!(set as usize, i);
        }
        // Sets with equal weights would make the checks above vacuous.
        for phase in [Phase::Placing, Phase::Moving] {
            let sets = WeightSet::ALL.map(|s| s.weights(phase));
            for (i, a) in sets.iter().enumerate() {
                for b in &sets[i + 1..] {
                    assert_ne!(a, b, "{phase:?}");
                }
            }
        }
    }

    #[test]
    fn weights_go_to_an_array_and_back() {
        for set in params::WeightSet::ALL {
            for phase in Phase::ALL {
                let w = *set.weights(phase);
                assert_eq!(
                    EvalWeights::from_array(w.to_array()),
                    w,
                    "{set:?} {phase:?}"
                );
            }
        }
        assert_eq!(params::MOVING.to_array()[6], params::MOVING.running_mill);
        assert_eq!(EvalWeights::NAMES[6], "running_mill");
    }

    #[test]
    fn two_closing_points_against_a_side_that_cannot_close_cost_it() {
        // White: a7-d7 (g7 closes) and a7-a1 (a4 closes); black to move,
        // with no line of its own to close.
        let (pos, rules) = placed(&["d7", "d3", "a7", "f4", "a1"]);
        assert_eq!(
            threat_term(&pos, &rules),
            -params::PLACING.unstoppable_threat
        );
        // A zero weight would make the other cases pass vacuously.
        const { assert!(params::PLACING.unstoppable_threat > 0) };
    }

    #[test]
    fn a_mill_majority_counts_where_mills_remove_when_placing_ends() {
        // El Filja: white's a7-d7-g7 stands, black has no mill; black to
        // move. The same placements in nine men's morris owe a removal
        // instead, and the term is off there.
        let term = |pos: &Position, rules: &Rules| {
            let w = weights(pos, rules);
            let without = EvalWeights {
                mill_majority: 0,
                ..*w
            };
            evaluate_with(pos, rules, w).score - evaluate_with(pos, rules, &without).score
        };
        let rules = Variant::ElFilja.rules();
        let mut pos = Position::startpos(&rules);
        for p in ["a7", "a1", "d7", "d1", "g7"] {
            pos = pos.play(&rules, Move::place(p.parse().unwrap())).unwrap();
        }
        assert_eq!(pos.side_to_move(), Color::Black);
        assert_eq!(term(&pos, &rules), -params::EL_FILJA_PLACING.mill_majority);
        // Black closes a1-d1-g1: one mill each, no majority.
        let even = pos
            .play(&rules, Move::place("g1".parse().unwrap()))
            .unwrap();
        assert_eq!(term(&even, &rules), 0);
        let (nine, nine_rules) = placed(&["a7", "a1", "d7", "d1"]);
        let g7xa1 = Move::place("g7".parse().unwrap()).with_removal("a1".parse().unwrap());
        let nine = nine.play(&nine_rules, g7xa1).unwrap();
        assert_eq!(term(&nine, &nine_rules), 0);
        const { assert!(params::EL_FILJA_PLACING.mill_majority > 0) };
    }

    #[test]
    fn marks_that_empty_when_placing_ends_count_as_free() {
        let rules = Variant::DaSanQi.rules();
        let mut pos = Position::startpos(&rules);
        for m in ["d2", "a1", "f2", "g1"] {
            pos = pos.play(&rules, Move::place(m.parse().unwrap())).unwrap();
        }
        let b2xa1 = Move::place("b2".parse().unwrap()).with_removal("a1".parse().unwrap());
        let pos = pos.play(&rules, b2xa1).unwrap();
        let a1: Point = "a1".parse().unwrap();
        assert!(pos.marked().contains(a1) && !pos.empty().contains(a1));
        assert_eq!(free_points(&pos, &rules), pos.empty().with(a1));
        let (nine, nine_rules) = placed(&["d2", "a1"]);
        assert_eq!(free_points(&nine, &nine_rules), nine.empty());
    }

    #[test]
    fn one_closing_point_is_no_double_threat() {
        // White: a7-d7 only (c4 makes no pair).
        let (pos, rules) = placed(&["d7", "d3", "a7", "f4", "c4"]);
        assert_eq!(threat_term(&pos, &rules), 0);
    }

    #[test]
    fn a_side_that_can_close_first_pays_nothing() {
        // As the first case, but black's d3-e3 closes at c3.
        let (pos, rules) = placed(&["d7", "d3", "a7", "e3", "a1"]);
        assert_eq!(threat_term(&pos, &rules), 0);
    }

    #[test]
    fn a_spent_one_time_mill_is_no_threat() {
        // Russian Mill: white's a7-d7 and g4-g1 both close at g7.
        let rules = Variant::Russian.rules();
        let mut pos = Position::startpos(&rules);
        for p in ["a7", "a1", "d7", "b2", "g4", "f6", "g1"] {
            pos = pos.play(&rules, Move::place(p.parse().unwrap())).unwrap();
        }
        let fresh = terms(&pos, &rules);
        assert_eq!((fresh.open_mill, fresh.double_threat), (-2, -1));
        // Had a7-d7-g7 been formed once already, only g4-g1 would threaten.
        pos.formed[Color::White.index()] = ["a7", "d7", "g7"]
            .iter()
            .fold(Bitboard::EMPTY, |b, p| b.with(p.parse().unwrap()));
        let spent = terms(&pos, &rules);
        assert_eq!((spent.open_mill, spent.double_threat), (-1, 0));
    }

    #[test]
    fn a_cramped_stepping_side_pays_in_russian_mill_only() {
        // Moving, black to move: black's four outer corners are shut in
        // by white's four outer midpoints, black's b6 has two moves (d6,
        // b4), white's midpoints one each.
        let fen = "********/*******@/O@O@O@O@ b m s 4 0 5 0 0 0 0 0 0 0 0 0 1";
        let russian = Variant::Russian.rules();
        let pos = Position::from_fen(fen, &russian).unwrap();
        let [black, white] = russian.geometry().mobility_pair(
            pos.pieces(Color::Black),
            pos.pieces(Color::White),
            pos.empty(),
        );
        assert_eq!((black, white), (2, 4));
        let cramp = patterns::CRAMP[0][black as usize] + patterns::CRAMP[1][white as usize];
        assert_eq!(terms(&pos, &russian).cramp, cramp);
        assert_ne!(cramp, 0);
        // Nine Men's Morris scores its moving phase by the patterns, whose
        // mobility tables hold the same curve; its terms add none.
        let nine = Variant::Nine.rules();
        let pos = Position::from_fen(fen, &nine).unwrap();
        assert_eq!(terms(&pos, &nine).cramp, 0);
    }

    #[test]
    fn a_moving_side_needs_a_piece_that_can_slide_in() {
        // Moving: white's open lines d7-g7 (a7 closes), d1-g1 (a1) and
        // g7-g1 (g4); black, to move, has no open line. Only a white piece
        // on a4 can slide into a hole (a7 or a1).
        let rules = Variant::Nine.rules();
        let fen = |outer: &str, white: u32| {
            format!("@*@*@*@*/@*******/{outer} b m s {white} 0 5 0 0 0 0 0 0 0 0 0 1")
        };
        let stuck = Position::from_fen(&fen("OO*OO***", 4), &rules).unwrap();
        assert_eq!(threat_term(&stuck, &rules), 0);
        let sliding = Position::from_fen(&fen("OO*OO*O*", 5), &rules).unwrap();
        assert_eq!(
            threat_term(&sliding, &rules),
            -params::MOVING.unstoppable_threat
        );
    }
}

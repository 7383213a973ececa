//! The search's score as a win, draw and loss expectation in per mille
//! (`UCI_ShowWDL`, Stockfish's habit): of the positions a short search
//! gives a score, the shares that perfect play wins, draws and loses for
//! the side to move. The table is fitted on the databases' exact values by
//! `mulino tb wdl` (docs/strength.md, "Win, draw and loss from a score").

use super::Score;

/// Win, draw and loss per mille, summing to 1000, side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WdlShares {
    pub win: u16,
    pub draw: u16,
    pub loss: u16,
}

/// Each row: the highest score (in the search's centipieces) of a bucket,
/// and its win, draw and loss per mille; ascending, the last row open
/// above. Monotone: wins never fall and losses never rise as the score
/// grows.
///
/// Provenance (docs/strength.md, "Win, draw and loss from a score"): fitted
/// by `mulino tb wdl --dir DIR --pieces 3-7 --count 40000 --nodes 10000
/// --buckets 24 --seed 1` at mulino 01d81fb with the search of that build,
/// DIR the `.wdz` files of Nine Men's Morris up to 7-7 under the N-move
/// rule of 100 plies: 35,963 moving-phase positions scored in centipieces
/// (4,037 more scored as mates, left out), each counted twice, mirrored;
/// the comment after each row is its positions. The placing phase was not
/// sampled (no placing layers were at hand): there the map is a rougher
/// guide.
pub const WDL_BY_SCORE: &[(i32, u16, u16, u16)] = &[
    (-1341, 0, 1, 999),    // 3007
    (-913, 0, 28, 972),    // 2986
    (-345, 0, 121, 879),   // 3039
    (-295, 0, 777, 223),   // 3431
    (-230, 0, 909, 91),    // 3024
    (-195, 0, 953, 47),    // 3243
    (-138, 0, 953, 47),    // 2261
    (-110, 0, 953, 47),    // 3146
    (-85, 0, 953, 47),     // 2881
    (-27, 0, 953, 47),     // 2973
    (-10, 0, 953, 47),     // 3005
    (0, 3, 995, 2),        // 3168
    (10, 40, 958, 2),      // 3091
    (27, 40, 960, 0),      // 2720
    (85, 40, 960, 0),      // 4032
    (110, 40, 960, 0),     // 2529
    (138, 40, 960, 0),     // 2432
    (195, 40, 960, 0),     // 3338
    (230, 41, 959, 0),     // 2697
    (295, 135, 865, 0),    // 3021
    (345, 222, 778, 0),    // 2913
    (910, 883, 117, 0),    // 2995
    (1341, 972, 28, 0),    // 3006
    (i32::MAX, 999, 1, 0), // 2988
];

/// The shares for a reported score: a mate is won or lost outright; a
/// centipiece score takes its bucket's row.
pub fn wdl_of(score: Score) -> WdlShares {
    let row = |(_, win, draw, loss): (i32, u16, u16, u16)| WdlShares { win, draw, loss };
    match score {
        Score::Mate(n) if n > 0 => row((0, 1000, 0, 0)),
        Score::Mate(_) => row((0, 0, 0, 1000)),
        Score::Cp(cp) => WDL_BY_SCORE
            .iter()
            .copied()
            .find(|&(upper, ..)| cp <= upper)
            .map_or(row((0, 0, 1000, 0)), row),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_sums_to_1000_rises_and_ends_open() {
        for &(upper, w, d, l) in WDL_BY_SCORE {
            assert_eq!(w + d + l, 1000, "row {upper}");
        }
        for pair in WDL_BY_SCORE.windows(2) {
            let ((a, aw, _, al), (b, bw, _, bl)) = (pair[0], pair[1]);
            assert!(a < b, "{a} then {b}");
            assert!(aw <= bw && al >= bl, "row {a} to {b}");
        }
        assert_eq!(WDL_BY_SCORE.last().map(|r| r.0), Some(i32::MAX));
    }

    #[test]
    fn mates_are_decided_and_scores_are_monotone() {
        assert_eq!(wdl_of(Score::Mate(3)).win, 1000);
        assert_eq!(wdl_of(Score::Mate(-2)).loss, 1000);
        let mut last = wdl_of(Score::Cp(-30_000));
        for cp in (-30_000..=30_000).step_by(7) {
            let now = wdl_of(Score::Cp(cp));
            assert_eq!(now.win + now.draw + now.loss, 1000, "{cp}");
            assert!(now.win >= last.win && now.loss <= last.loss, "{cp}");
            last = now;
        }
    }
}

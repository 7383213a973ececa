//! Formatting replies: info lines, bestmove, the board drawing, perft.

use std::fmt::Write as _;

use crate::core::OptionKind;
use crate::core::{Color, Game, Point};
use crate::engine::{EngineOption, Notice, PerftReport};
use crate::search::wdl::wdl_of;
use crate::search::{Bound, Info, Score};
use crate::tb::{TbValue, Wdl};

pub fn option_line(option: EngineOption) -> String {
    let mut s = format!("option name {} type ", option.name());
    match option.kind() {
        OptionKind::Spin { default, min, max } => {
            let _ = write!(s, "spin default {default} min {min} max {max}");
        }
        OptionKind::Check { default } => {
            let _ = write!(s, "check default {default}");
        }
        OptionKind::Combo { default, vars } => {
            let _ = write!(s, "combo default {default}");
            for v in vars {
                let _ = write!(s, " var {v}");
            }
        }
        OptionKind::Button => s.push_str("button"),
        OptionKind::Text { default } => {
            let default = if default.is_empty() {
                "<empty>"
            } else {
                default
            };
            let _ = write!(s, "string default {default}");
        }
    }
    s
}

/// An `info` line of a search; with `show_wdl` (`UCI_ShowWDL`), the
/// score's win, draw and loss per mille after it, as Stockfish prints them.
pub fn info_line(info: &Info, show_wdl: bool) -> String {
    let mut score = match info.score {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(n) => format!("mate {n}"),
    };
    if show_wdl {
        let w = wdl_of(info.score);
        let _ = write!(score, " wdl {} {} {}", w.win, w.draw, w.loss);
    }
    let bound = match info.bound {
        Some(Bound::Lower) => " lowerbound",
        Some(Bound::Upper) => " upperbound",
        _ => "",
    };
    let tbhits = info
        .tbhits
        .map(|n| format!(" tbhits {n}"))
        .unwrap_or_default();
    let mut s = format!(
        "info depth {} seldepth {} multipv {} score {score}{bound} nodes {} nps {} hashfull {}{tbhits} time {} pv",
        info.depth, info.seldepth, info.multipv, info.nodes, info.nps, info.hashfull, info.time_ms
    );
    for m in &info.pv {
        let _ = write!(s, " {m}");
    }
    s
}

/// The board as ASCII art, file letters below, rank numbers left: every
/// point as the FEN writes it (`O` White, `@` Black, `X` a point a mill
/// marked, `*` empty), and the diagonal lines where the rules have them.
pub fn board_drawing(game: &Game) -> String {
    const ART: [&str; 13] = [
        "7 #-----------#-----------#",
        "  |           |           |",
        "6 |   #-------#-------#   |",
        "  |   |       |       |   |",
        "5 |   |   #---#---#   |   |",
        "  |   |   |       |   |   |",
        "4 #---#---#       #---#---#",
        "  |   |   |       |   |   |",
        "3 |   |   #---#---#   |   |",
        "  |   |       |       |   |",
        "2 |   #-------#-------#   |",
        "  |           |           |",
        "1 #-----------#-----------#",
    ];
    /// Where the four diagonals cross the rows between their points:
    /// (row, column, stroke).
    const DIAGONALS: [(usize, usize, char); 8] = [
        (1, 4, '\\'),
        (3, 8, '\\'),
        (1, 24, '/'),
        (3, 20, '/'),
        (9, 8, '/'),
        (11, 4, '/'),
        (9, 20, '\\'),
        (11, 24, '\\'),
    ];
    let pos = game.position();
    let diagonals = game.rules().diagonals;
    let mut out = String::new();
    for (row, line) in ART.iter().enumerate() {
        let rank = 6 - row / 2;
        for (col, ch) in line.chars().enumerate() {
            let stroke = DIAGONALS
                .iter()
                .find(|&&(r, c, _)| diagonals && (r, c) == (row, col))
                .map(|&(_, _, stroke)| stroke);
            if let Some(stroke) = stroke {
                out.push(stroke);
            } else if ch == '#' {
                let file = ((col - 2) / 4) as u8;
                out.push(match Point::from_coords(file, rank as u8) {
                    Some(p) if pos.pieces(Color::White).contains(p) => 'O',
                    Some(p) if pos.pieces(Color::Black).contains(p) => '@',
                    Some(p) if pos.marked().contains(p) => 'X',
                    _ => '*',
                });
            } else {
                out.push(ch);
            }
        }
        out.push('\n');
    }
    out.push_str("  a   b   c   d   e   f   g\n");
    out
}

/// The `d` command's full answer.
/// A database value for `tbprobe` and `d`, under the N-move rules from
/// the position's counter: `win 25 removal 11` (plies to the end of the
/// game, then to the next removal that keeps the win), `loss 24 removal
/// 8`, `draw`; where the rules change the value, the value without them
/// follows: `draw pure win 57 removal 33`; where the databases cannot say
/// whether the rules change it, `unknown pure win 57`; `unknown` where
/// they do not hold the position.
pub fn tb_value(v: Option<TbValue>) -> String {
    let Some(v) = v else {
        return "unknown".to_string();
    };
    let mut s = match v.rule {
        Some(r) => r.name().to_string(),
        None => "unknown".to_string(),
    };
    if let Some(pure) = v.pure.filter(|&p| p != Wdl::Draw) {
        if v.rule != Some(pure) {
            let _ = write!(s, " pure {}", pure.name());
        }
        if let Some(d) = v.to_end {
            let _ = write!(s, " {d}");
        }
        if let Some(z) = v.to_removal {
            let _ = write!(s, " removal {z}");
        }
    }
    s
}

/// The board and the position's facts; `tb` is the database value when
/// databases are in use.
pub fn display(game: &Game, tb: Option<Option<TbValue>>) -> String {
    let pos = game.position();
    let rules = game.rules();
    let mut s = board_drawing(game);
    let mut list = crate::core::MoveList::new();
    pos.legal_moves(rules, &mut list);
    let _ = writeln!(s, "\nFen: {}", pos.fen(rules));
    let _ = writeln!(s, "Key: {:016X}", pos.key());
    let _ = writeln!(s, "Side to move: {}", pos.side_to_move());
    for c in Color::ALL {
        let _ = writeln!(
            s,
            "{}: {} on board, {} in hand",
            capitalised(c),
            pos.pieces(c).count(),
            pos.in_hand(c)
        );
    }
    let phase = match (
        game.outcome().is_some(),
        pos.pending_removals() > 0,
        pos.is_placing(),
    ) {
        (true, _, _) => "game over".to_string(),
        (false, true, _) => format!("removing ({} owed)", pos.pending_removals()),
        (false, false, true) => "placing".to_string(),
        (false, false, false) if pos.can_fly(rules, pos.side_to_move()) => {
            "moving (flying)".to_string()
        }
        _ => "moving".to_string(),
    };
    let _ = writeln!(s, "Phase: {phase}");
    let status = game
        .outcome()
        .map_or_else(|| "in play".to_string(), |o| o.describe());
    let _ = writeln!(s, "Status: {status}");
    if let Some(v) = tb {
        let _ = writeln!(s, "Tablebase: {}", tb_value(v));
    }
    let legal = if game.outcome().is_some() {
        0
    } else {
        list.len()
    };
    let _ = write!(s, "Legal moves: {legal}");
    s
}

fn capitalised(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Stockfish's perft layout: one line per root move, an empty line, the
/// total, then the time. No speed: with the last ply counted in bulk and
/// subtrees memoised, leaves over time says nothing about how fast
/// anything runs (`perft 7` made it 12 billion "nodes per second").
pub fn perft_report(r: &PerftReport) -> String {
    let mut s = String::new();
    for (m, n) in &r.divide.counts {
        let _ = writeln!(s, "{m}: {n}");
    }
    let ms = r.elapsed.as_millis();
    if !r.divide.is_complete() {
        let _ = write!(
            s,
            "info string perft {} stopped after {ms} ms: {} of {} root moves counted, no total",
            r.depth,
            r.divide.counts.len(),
            r.divide.root_moves
        );
        return s;
    }
    let _ = writeln!(s, "\nNodes searched: {}", r.divide.total());
    let _ = write!(s, "Time: {ms} ms");
    s
}

/// A notice the engine gives on its own (the databases' background
/// check), as an `info string` line.
pub fn notice_line(n: &Notice) -> String {
    match n {
        Notice::TablebaseProblem(what) => format!("info string error: TablebasePath: {what}"),
        Notice::TablebasesChecked { usable, refused: 0 } => {
            format!("info string TablebasePath: {usable} files checked, all in use")
        }
        Notice::TablebasesChecked { usable, refused } => format!(
            "info string TablebasePath: {usable} files checked and in use, {refused} not used"
        ),
        Notice::TablebasesPacked { tables, at } => format!(
            "info string TablebasePath: {tables} tables packed at {at} in use, each block checked as it is read"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Move, Variant};

    fn game_after(variant: Variant, moves: &[&str]) -> Game {
        let mut game = Game::new(variant.rules());
        for m in moves {
            let m: Move = m.parse().expect("a move");
            game.play(m).expect("legal");
        }
        game
    }

    #[test]
    fn the_drawing_shows_the_lines_of_the_board_in_use() {
        let nine = board_drawing(&game_after(Variant::Nine, &[]));
        assert!(!nine.contains('\\') && !nine.contains('/'), "{nine}");
        let twelve = board_drawing(&game_after(Variant::Twelve, &[]));
        let lines: Vec<&str> = twelve.lines().collect();
        // a7-b6-c5 and g7-f6-e5 above, c3-b2-a1 and e3-f2-g1 below.
        assert_eq!(lines[1], "  | \\         |         / |");
        assert_eq!(lines[3], "  |   | \\     |     / |   |");
        assert_eq!(lines[9], "  |   | /     |     \\ |   |");
        assert_eq!(lines[11], "  | /         |         \\ |");
        assert_eq!(
            twelve.matches('\\').count() + twelve.matches('/').count(),
            8
        );
    }

    #[test]
    fn every_point_is_drawn_as_the_fen_writes_it() {
        // Da San Qi: a placing mill marks the removed piece's point.
        let game = game_after(Variant::DaSanQi, &["a7", "b6", "d7", "b4", "g7xb6"]);
        let drawing = board_drawing(&game);
        let fen = game.position().fen(game.rules());
        assert!(fen.contains('X'), "{fen}");
        let row6 = drawing.lines().nth(2).expect("the row of b6");
        assert_eq!(row6, "6 |   X-------*-------*   |");
        // Each point's letter, read off the drawing, is the FEN's.
        let count = |c: char| drawing.chars().filter(|&x| x == c).count();
        let fen_board = fen.split(' ').next().expect("a board field");
        for c in ['O', '@', 'X', '*'] {
            assert_eq!(
                count(c),
                fen_board.matches(c).count(),
                "{c}: {drawing}\n{fen}"
            );
        }
    }
}

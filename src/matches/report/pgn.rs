//! Games as PGN records (the format is described in docs/matches.md): the
//! tags, then the moves in mulino's notation numbered by full move, each
//! engine move with a `{score/depth time}` comment, and the result.

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::core::{Color, Game, Move, Position};
use crate::matches::config::Config;
use crate::matches::game::record::GameRecord;

/// Movetext lines are wrapped before this many characters.
const LINE_WIDTH: usize = 80;

/// `YYYY.MM.DD` (UTC) for a point in time.
pub fn pgn_date(t: SystemTime) -> String {
    let days = t
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| (d.as_secs() / 86_400) as i64);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to a
/// proleptic Gregorian date.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// A tag value with `\` and `"` escaped.
fn escaped(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Text for a comment: no braces inside.
fn comment_text(text: &str) -> String {
    text.replace(['{', '}'], "")
}

/// A move's token, its number on the same line: `N.` before white's
/// moves, `N...` before black's unless they follow white's (at the start,
/// and after a black move, when a rule gives black two turns in a row). A
/// removal played as a move of its own follows its step unnumbered.
fn numbered(pos: &Position, previous: Option<Color>, mv: Move) -> String {
    let n = pos.fullmove();
    let continues = previous == Some(pos.side_to_move()) && pos.pending_removals() != 0;
    match pos.side_to_move() {
        _ if continues => mv.to_string(),
        Color::White => format!("{n}. {mv}"),
        Color::Black if previous == Some(Color::White) => mv.to_string(),
        Color::Black => format!("{n}... {mv}"),
    }
}

/// One game as a PGN record, ending with a blank line.
pub fn format_game(game: &GameRecord, config: &Config, names: &[String]) -> String {
    let rules = &config.rule_set.rules;
    let mut tags: Vec<(&str, String)> = vec![
        ("Event", config.event.clone()),
        ("Site", "?".into()),
        ("Date", pgn_date(game.started)),
        ("Round", (game.job.index + 1).to_string()),
        ("White", names[game.job.white].clone()),
        ("Black", names[game.job.black].clone()),
        ("Result", game.termination.result_text().into()),
        ("Variant", config.rule_set.variant.name().into()),
    ];
    if !config.rule_set.overrides.is_empty() {
        let rules_text: Vec<String> = config
            .rule_set
            .overrides
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        tags.push(("Rules", rules_text.join(" ")));
    }
    if let Some(fen) = &game.job.opening.fen {
        tags.push(("SetUp", "1".into()));
        tags.push(("FEN", fen.clone()));
    }
    let white_tc = config.engines[game.job.white].limits.describe();
    let black_tc = config.engines[game.job.black].limits.describe();
    if white_tc == black_tc {
        tags.push(("TimeControl", white_tc));
    } else {
        tags.push(("TimeControl", "?".into()));
        tags.push(("WhiteTimeControl", white_tc));
        tags.push(("BlackTimeControl", black_tc));
    }
    tags.push(("Termination", game.termination.keyword().into()));
    if let Some(value) = game.opening_value {
        tags.push(("OpeningValue", value.into()));
    }
    tags.push(("PlyCount", game.moves.len().to_string()));

    let mut out = String::new();
    for (name, value) in &tags {
        let _ = writeln!(out, "[{name} \"{}\"]", escaped(value));
    }
    out.push('\n');

    let mut tokens: Vec<String> = Vec::new();
    // Checked play follows partial turns (a step whose removal came as a
    // move of its own) as well as whole ones.
    let mut replay = Game::from_position(*rules, game.job.opening.start);
    let mut previous = None;
    for record in &game.moves {
        let pos = *replay.position();
        tokens.push(numbered(&pos, previous, record.mv));
        previous = Some(pos.side_to_move());
        let comment = if record.book {
            "{book}".to_string()
        } else {
            let time = format!("{:.3}s", record.time.as_secs_f64());
            match (record.score, record.depth) {
                (Some(s), Some(d)) => format!("{{{}/{d} {time}}}", s.text()),
                (Some(s), None) => format!("{{{} {time}}}", s.text()),
                _ => format!("{{{time}}}"),
            }
        };
        tokens.push(comment);
        let _ = replay.play(record.mv);
    }
    tokens.push(format!("{{{}}}", comment_text(&game.detail)));
    tokens.push(game.termination.result_text().into());

    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > LINE_WIDTH {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        for (days, date) in [
            (0, (1970, 1, 1)),
            (19_723, (2024, 1, 1)),
            (11_016, (2000, 2, 29)),
            (20_000, (2024, 10, 4)),
            (60_000, (2134, 4, 11)),
        ] {
            assert_eq!(civil_from_days(days), date, "{days}");
        }
        assert_eq!(pgn_date(UNIX_EPOCH), "1970.01.01");
    }

    #[test]
    fn moves_are_numbered_by_turn() {
        use crate::core::Rules;
        let rules = Rules::default();
        let start = Position::startpos(&rules);
        let d6 = Move::place("d6".parse().unwrap());
        let white = start;
        let black = start.play(&rules, d6).unwrap();
        let a1 = Move::place("a1".parse().unwrap());
        assert_eq!(numbered(&white, None, d6), "1. d6");
        assert_eq!(numbered(&black, Some(Color::White), a1), "a1");
        // At the start, and after black's own move: numbered.
        assert_eq!(numbered(&black, None, a1), "1... a1");
        assert_eq!(numbered(&black, Some(Color::Black), a1), "1... a1");
        // White after white keeps its number.
        assert_eq!(numbered(&white, Some(Color::White), d6), "1. d6");
        // A removal owed after a step of the same side continues it.
        let fen = "@@******/********/OO*****O w p r 3 6 2 7 1 0 0 0 0 0 0 0 3";
        let owed = Position::from_fen(fen, &rules).unwrap();
        assert_eq!(owed.pending_removals(), 1);
        let x = Move::remove_only("d5".parse().unwrap());
        assert_eq!(numbered(&owed, Some(Color::White), x), "xd5");
        assert_eq!(numbered(&owed, None, x), "3. xd5");
    }

    #[test]
    fn escaping() {
        assert_eq!(escaped(r#"a "b" \c"#), r#"a \"b\" \\c"#);
        assert_eq!(comment_text("x {y}"), "x y");
    }
}

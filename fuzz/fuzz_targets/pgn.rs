//! PGN: `core::pgn::read` on any text, each game written as JSON as
//! `mulino pgn` writes it, then replayed as the tuner replays it
//! (`tune::games::positions`, under the rules its `Variant` tag names),
//! and once more under those rules with the overrides of its `Rules` tag
//! (`NAME=VALUE ...`, as `mulino match --rule` writes them). Every
//! position reached at the start of a turn must pass
//! `mulino_fuzz::check_position` (the first and last of each game, to
//! keep a run fast).

#![no_main]

use libfuzzer_sys::fuzz_target;
use mulino::core::{Game, Position, Variant, pgn};
use mulino::matches::rules::{build_rules, parse_rule};
use mulino::tune::games::positions;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for game in pgn::read(&text).iter().take(16) {
        serde_json::to_string(game).expect("a game writes as JSON");
        let _ = game.white_score();
        let variant = game
            .tag("Variant")
            .and_then(|v| v.parse().ok())
            .unwrap_or(Variant::Nine);
        let rules = variant.rules();
        if let Ok(ps) = positions(game, variant, &rules) {
            for p in [ps.first(), ps.last()].into_iter().flatten() {
                mulino_fuzz::check_position(p, &rules);
            }
        }
        let Some(overrides) = game.tag("Rules") else {
            continue;
        };
        let Ok(parsed) = overrides
            .split_whitespace()
            .map(parse_rule)
            .collect::<Result<Vec<_>, _>>()
        else {
            continue;
        };
        let Ok(rules) = build_rules(variant, &parsed) else {
            continue;
        };
        let start = match game.tag("FEN") {
            Some(fen) => match Position::from_fen(fen, &rules) {
                Ok(p) => p,
                Err(_) => continue,
            },
            None => Position::startpos(&rules),
        };
        if let Ok(g) = Game::from_moves(rules, start, game.move_texts()) {
            mulino_fuzz::check_position(g.position(), &rules);
            let _ = g.outcome();
        }
    }
});

//! Move notation: the first line is a start (a FEN, or `startpos` or
//! nothing for the start position), the words after it moves. Every word
//! that parses as a move must write back to itself; then the moves are
//! played from the start under every preset's rules, checked
//! (`Position::play`, which takes partial turns too) and through
//! `find_legal`, as the protocols and the match runner play them, and by
//! `Game::from_moves`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mulino::core::{Game, Move, Position};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (start, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let words: Vec<&str> = rest.split_whitespace().take(64).collect();
    let moves: Vec<Option<Move>> = words.iter().map(|w| w.parse().ok()).collect();
    for m in moves.iter().flatten() {
        let written = m.to_string();
        assert_eq!(written.parse::<Move>(), Ok(*m), "{m} does not read back");
        let _ = m.step_text();
    }
    let start = start.trim();
    for (_, rules) in mulino_fuzz::variants() {
        let pos = match start {
            "" | "startpos" => Position::startpos(&rules),
            fen => match Position::from_fen(fen, &rules) {
                Ok(p) => p,
                Err(_) => continue,
            },
        };
        let mut now = pos;
        for m in moves.iter().flatten() {
            if let Some(legal) = now.find_legal(&rules, *m) {
                assert!(now.is_legal(&rules, legal));
                let played = now
                    .play(&rules, legal)
                    .unwrap_or_else(|e| panic!("legal {legal} does not play: {e}"));
                assert_eq!(played, now.play_unchecked(&rules, legal));
            }
            match now.play(&rules, *m) {
                Ok(next) => now = next,
                Err(_) => break,
            }
        }
        let _ = Game::from_moves(rules, pos, words.iter().copied());
    }
});

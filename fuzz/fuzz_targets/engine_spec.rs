//! The match runner's command line: each line of the input is one word
//! (so a word may hold spaces, as the shell's quotes allow). The words go
//! through the parsers of `--engine`'s and `--sprt`'s words, those they
//! read together as one `--engine` group and one `--sprt`, and each word
//! through the parsers of `--tc`, `--shard` and `--rule`; then all of them, after
//! `match`, through clap and `MatchArgs::into_config`, which checks the
//! whole command line (engines, limits, rules, SPRT, shard, dialects)
//! without starting anything. Time controls and shards must write back
//! (`pgn`, `Display`) to what reads the same.
//!
//! `--tb` is left out: it opens a directory (`tb_header` fuzzes the
//! files).

#![no_main]

use clap::Parser;
use libfuzzer_sys::fuzz_target;
use mulino::core::Rules;
use mulino::matches::MatchArgs;
use mulino::matches::config::{
    engine_spec, parse_engine_word, parse_shard, parse_sprt_word, parse_tc, sprt_from_words,
};
use mulino::matches::rules::{apply_rule, parse_rule};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: MatchArgs,
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let words: Vec<String> = text.split('\n').take(64).map(String::from).collect();
    let engine_words: Vec<_> = words
        .iter()
        .filter_map(|w| parse_engine_word(w).ok())
        .collect();
    if let Ok(spec) = engine_spec(&engine_words, &words.join(" ")) {
        let _ = spec.limits.describe();
    }
    let sprt_words: Vec<_> = words
        .iter()
        .filter_map(|w| parse_sprt_word(w).ok())
        .collect();
    let _ = sprt_from_words(&sprt_words);
    for w in &words {
        if let Ok(tc) = parse_tc("tc", w) {
            let pgn = tc.pgn();
            assert_eq!(parse_tc("tc", &pgn), Ok(tc), "{w:?} written as {pgn:?}");
        }
        if let Ok(shard) = parse_shard(w) {
            assert_eq!(parse_shard(&shard.to_string()), Ok(shard));
        }
        if let Ok((option, value)) = parse_rule(w) {
            let _ = apply_rule(&mut Rules::default(), option, &value);
        }
    }
    if words.iter().any(|w| w == "--tb" || w.starts_with("--tb=")) {
        return;
    }
    let argv = std::iter::once("match").chain(words.iter().map(String::as_str));
    if let Ok(cli) = Cli::try_parse_from(argv) {
        if cli.args.command.is_none() {
            if let Ok(config) = cli.args.into_config() {
                for e in &config.engines {
                    let _ = e.limits.describe();
                }
            }
        }
    }
});

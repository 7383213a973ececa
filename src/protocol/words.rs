//! Token rules both dialects share: the limits on numbers, the moves after
//! a position's start, and `setoption`'s `name ... value ...`.

/// The deepest search or perft the engine accepts.
pub const MAX_DEPTH: u32 = 64;
/// The longest time, in ms, `go` accepts (about 31 years; absurd beyond).
pub const MAX_TIME_MS: u64 = 1 << 50;

/// What may follow a position's start: nothing, or `moves ...`; any other
/// token is returned as the error.
pub fn moves_after<'a>(mut tokens: impl Iterator<Item = &'a str>) -> Result<Vec<String>, &'a str> {
    match tokens.next() {
        None => Ok(Vec::new()),
        Some(t) if t.eq_ignore_ascii_case("moves") => Ok(tokens.map(str::to_string).collect()),
        Some(t) => Err(t),
    }
}

/// `setoption`'s arguments, `name <id> [value <x>]`: the name (every token
/// up to `value`, joined by single spaces) and the value, or `None` when
/// there is no name.
pub fn split_setoption(rest: &[&str]) -> Option<(String, Option<String>)> {
    if rest.first().map(|t| t.eq_ignore_ascii_case("name")) != Some(true) {
        return None;
    }
    let rest = &rest[1..];
    let (name, value) = match rest.iter().position(|t| t.eq_ignore_ascii_case("value")) {
        Some(i) => (rest[..i].join(" "), Some(rest[i + 1..].join(" "))),
        None => (rest.join(" "), None),
    };
    (!name.is_empty()).then_some((name, value))
}

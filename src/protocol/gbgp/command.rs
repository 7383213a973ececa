//! Parsing one GBGP line into a [`Command`]; nothing else.

use std::str::FromStr;

use crate::protocol::words::{MAX_DEPTH, MAX_TIME_MS, moves_after, split_setoption};

/// Where `position` starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    StartPos,
    /// A GBGP position string (see [`super::fen`]).
    Pos(String),
}

/// The limits of one `go`: GBGP has no increment, no `infinite` (a bare
/// `go` searches until `stop`) and no `mate`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub movetime: Option<u64>,
    pub depth: Option<u32>,
}

/// One line of GBGP input, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// The handshake (again).
    Gbgp,
    Debug(bool),
    NewGame,
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Position {
        start: Start,
        moves: Vec<String>,
    },
    Go(Go),
    Stop,
    Quit,
    /// An empty line: ignored.
    Nothing,
}

/// What is wrong with a line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GbgpCommandError {
    #[error("unknown command `{0}` (protocol.md lists the GBGP commands)")]
    Unknown(String),
    #[error("`{command}` expects {expected}")]
    Missing {
        command: &'static str,
        expected: &'static str,
    },
    #[error("`{command}`: unexpected `{token}`")]
    Unexpected {
        command: &'static str,
        token: String,
    },
    #[error("`go`: `{value}` is not valid for `{param}` ({expected})")]
    BadValue {
        param: &'static str,
        value: String,
        expected: &'static str,
    },
    #[error("`go`: `{0}` given twice")]
    Repeated(&'static str),
}

fn no_more<'a>(
    command: &'static str,
    mut tokens: impl Iterator<Item = &'a str>,
    c: Command,
) -> Result<Command, GbgpCommandError> {
    match tokens.next() {
        None => Ok(c),
        Some(t) => Err(GbgpCommandError::Unexpected {
            command,
            token: t.to_string(),
        }),
    }
}

fn parse_go<'a>(mut tokens: impl Iterator<Item = &'a str>) -> Result<Go, GbgpCommandError> {
    let mut go = Go::default();
    while let Some(tok) = tokens.next() {
        let key = tok.to_ascii_lowercase();
        let (param, expected, max): (&'static str, &'static str, u64) = match key.as_str() {
            "wtime" => ("wtime", "milliseconds, 0 or more", MAX_TIME_MS),
            "btime" => ("btime", "milliseconds, 0 or more", MAX_TIME_MS),
            "movetime" => ("movetime", "milliseconds, 0 or more", MAX_TIME_MS),
            "depth" => ("depth", "a depth from 1 to 64", MAX_DEPTH as u64),
            _ => {
                return Err(GbgpCommandError::Unexpected {
                    command: "go",
                    token: tok.to_string(),
                });
            }
        };
        let value = tokens.next().ok_or(GbgpCommandError::Missing {
            command: "go",
            expected,
        })?;
        let min = u64::from(param == "depth");
        let n = value
            .parse::<u64>()
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| GbgpCommandError::BadValue {
                param,
                value: value.to_string(),
                expected,
            })?;
        let slot = match param {
            "wtime" => &mut go.wtime,
            "btime" => &mut go.btime,
            "movetime" => &mut go.movetime,
            _ => {
                if go.depth.replace(n as u32).is_some() {
                    return Err(GbgpCommandError::Repeated(param));
                }
                continue;
            }
        };
        if slot.replace(n).is_some() {
            return Err(GbgpCommandError::Repeated(param));
        }
    }
    Ok(go)
}

fn parse_position<'a>(
    mut tokens: impl Iterator<Item = &'a str>,
) -> Result<Command, GbgpCommandError> {
    const C: &str = "position";
    let expected = "`startpos` or `pos <position>`, then optionally `moves ...`";
    let start = match tokens.next().map(str::to_ascii_lowercase).as_deref() {
        Some("startpos") => Start::StartPos,
        Some("pos") => match tokens.next() {
            Some(p) => Start::Pos(p.to_string()),
            None => {
                return Err(GbgpCommandError::Missing {
                    command: C,
                    expected,
                });
            }
        },
        _ => {
            return Err(GbgpCommandError::Missing {
                command: C,
                expected,
            });
        }
    };
    let moves = moves_after(tokens).map_err(|t| GbgpCommandError::Unexpected {
        command: C,
        token: t.to_string(),
    })?;
    Ok(Command::Position { start, moves })
}

fn parse_setoption(rest: &[&str]) -> Result<Command, GbgpCommandError> {
    let (name, value) = split_setoption(rest).ok_or(GbgpCommandError::Missing {
        command: "setoption",
        expected: "`name <id> [value <x>]`",
    })?;
    Ok(Command::SetOption { name, value })
}

impl FromStr for Command {
    type Err = GbgpCommandError;

    fn from_str(line: &str) -> Result<Command, GbgpCommandError> {
        let all: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = all.first() else {
            return Ok(Command::Nothing);
        };
        let tokens = all[1..].iter().copied();
        match first.to_ascii_lowercase().as_str() {
            "gbgp" => no_more("gbgp", tokens, Command::Gbgp),
            "debug" => match all.get(1).map(|t| t.to_ascii_lowercase()).as_deref() {
                Some("on") => no_more("debug", all[2..].iter().copied(), Command::Debug(true)),
                Some("off") => no_more("debug", all[2..].iter().copied(), Command::Debug(false)),
                _ => Err(GbgpCommandError::Missing {
                    command: "debug",
                    expected: "`on` or `off`",
                }),
            },
            "newgame" => no_more("newgame", tokens, Command::NewGame),
            "isready" => no_more("isready", tokens, Command::IsReady),
            "setoption" => parse_setoption(&all[1..]),
            "position" => parse_position(tokens),
            "go" => parse_go(tokens).map(Command::Go),
            "stop" => no_more("stop", tokens, Command::Stop),
            "quit" => Ok(Command::Quit),
            _ => Err(GbgpCommandError::Unknown(first.chars().take(40).collect())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Command, GbgpCommandError> {
        s.parse()
    }

    #[test]
    fn what_the_gui_sends() {
        assert_eq!(parse("gbgp"), Ok(Command::Gbgp));
        assert_eq!(parse("debug on"), Ok(Command::Debug(true)));
        assert_eq!(parse("newgame"), Ok(Command::NewGame));
        assert_eq!(
            parse("setoption name TwelveMensMorris value false"),
            Ok(Command::SetOption {
                name: "TwelveMensMorris".into(),
                value: Some("false".into())
            })
        );
        assert_eq!(
            parse("position pos w:w:b:1 moves d6 d2"),
            Ok(Command::Position {
                start: Start::Pos("w:w:b:1".into()),
                moves: vec!["d6".into(), "d2".into()]
            })
        );
        assert_eq!(
            parse("go wtime 599818 btime 600000"),
            Ok(Command::Go(Go {
                wtime: Some(599_818),
                btime: Some(600_000),
                ..Go::default()
            }))
        );
        assert_eq!(
            parse("go movetime 100"),
            Ok(Command::Go(Go {
                movetime: Some(100),
                ..Go::default()
            }))
        );
        assert_eq!(parse("go"), Ok(Command::Go(Go::default())));
        assert_eq!(parse("  "), Ok(Command::Nothing));
    }

    type Check = fn(&GbgpCommandError) -> bool;

    #[test]
    fn bad_lines_say_what_is_wrong() {
        use GbgpCommandError as E;
        let cases: &[(&str, Check)] = &[
            ("uci", |e| matches!(e, E::Unknown(_))),
            ("debug", |e| matches!(e, E::Missing { .. })),
            ("debug maybe", |e| matches!(e, E::Missing { .. })),
            ("newgame now", |e| matches!(e, E::Unexpected { .. })),
            ("position", |e| matches!(e, E::Missing { .. })),
            ("position pos", |e| matches!(e, E::Missing { .. })),
            ("position fen x", |e| matches!(e, E::Missing { .. })),
            ("position startpos d6", |e| {
                matches!(e, E::Unexpected { .. })
            }),
            ("go infinite", |e| matches!(e, E::Unexpected { .. })),
            ("go wtime", |e| matches!(e, E::Missing { .. })),
            ("go wtime -5", |e| matches!(e, E::BadValue { .. })),
            ("go depth 0", |e| matches!(e, E::BadValue { .. })),
            ("go depth 65", |e| matches!(e, E::BadValue { .. })),
            ("go movetime 1 movetime 2", |e| matches!(e, E::Repeated(_))),
            ("go depth 3 depth 4", |e| matches!(e, E::Repeated(_))),
            ("setoption TwelveMensMorris", |e| {
                matches!(e, E::Missing { .. })
            }),
        ];
        for (line, is_expected) in cases {
            let err = parse(line).unwrap_err();
            assert!(is_expected(&err), "`{line}`: {err}");
        }
    }
}

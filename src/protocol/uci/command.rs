//! Parsing one line of our protocol into a [`Command`]; nothing else.

use std::str::FromStr;

pub use crate::engine::GoParams;
use crate::protocol::words::{MAX_DEPTH, MAX_TIME_MS, moves_after, split_setoption};

/// Where `position` starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartSpec {
    StartPos,
    Fen(String),
}

/// One line of input, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    UciNewGame,
    Position {
        start: StartSpec,
        moves: Vec<String>,
    },
    Go(GoParams),
    Stop,
    PonderHit,
    Quit,
    /// Show the board.
    Display,
    /// List the legal moves.
    Moves,
    /// The database value of the position and of each legal move.
    TbProbe,
    Perft(u32),
    /// `bench [depth]`.
    Bench(Option<u32>),
    /// The commands in a few lines, or one command's (`help go`).
    Help(Option<String>),
    /// An empty line: ignored.
    Nothing,
}

/// What is wrong with a line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("unknown command `{0}` (protocol.md lists the commands)")]
    Unknown(String),
    #[error("`{command}` expects {expected}")]
    Missing {
        command: &'static str,
        expected: &'static str,
    },
    #[error("`{command}`: `{value}` is not valid for `{param}` ({expected})")]
    BadValue {
        command: &'static str,
        param: String,
        value: String,
        expected: &'static str,
    },
    #[error("`{command}`: unexpected `{token}`")]
    Unexpected {
        command: &'static str,
        token: String,
    },
    #[error("`{0}` given twice")]
    Repeated(String),
    #[error("help: no command `{0}` (`help` lists them)")]
    NoSuchHelp(String),
}

/// `help [command]`: the command must be one the protocol has.
fn parse_help<'a>(mut tokens: impl Iterator<Item = &'a str>) -> Result<Command, CommandError> {
    let Some(topic) = tokens.next() else {
        return Ok(Command::Help(None));
    };
    if !super::help::knows(topic) {
        return Err(CommandError::NoSuchHelp(topic.to_string()));
    }
    no_more(
        "help",
        tokens,
        Command::Help(Some(topic.to_ascii_lowercase())),
    )
}

fn parse_num<T: FromStr + PartialOrd + Copy>(
    command: &'static str,
    param: &str,
    value: Option<&str>,
    range: (T, T),
    expected: &'static str,
) -> Result<T, CommandError> {
    let value = value.ok_or(CommandError::Missing { command, expected })?;
    let bad = || CommandError::BadValue {
        command,
        param: param.to_string(),
        value: value.to_string(),
        expected,
    };
    let n: T = value.parse().map_err(|_| bad())?;
    if n < range.0 || n > range.1 {
        Err(bad())
    } else {
        Ok(n)
    }
}

/// The words `go` takes.
const GO_KEYWORDS: [&str; 12] = [
    "depth",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "nodes",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
];

fn parse_go<'a>(mut tokens: impl Iterator<Item = &'a str>) -> Result<GoParams, CommandError> {
    const C: &str = "go";
    let mut p = GoParams::default();
    let mut seen: Vec<String> = Vec::new();
    let mut in_searchmoves = false;
    while let Some(tok) = tokens.next() {
        let key = tok.to_ascii_lowercase();
        let is_keyword = GO_KEYWORDS.contains(&key.as_str());
        if in_searchmoves && !is_keyword {
            let m = tok.parse().map_err(|_| CommandError::BadValue {
                command: C,
                param: "searchmoves".into(),
                value: tok.to_string(),
                expected: "moves such as `d6`, `d6-d5` or `d6-d5xb4`",
            })?;
            p.searchmoves.push(m);
            continue;
        }
        in_searchmoves = false;
        if is_keyword {
            if seen.contains(&key) {
                return Err(CommandError::Repeated(key));
            }
            seen.push(key.clone());
        }
        match key.as_str() {
            "infinite" => p.infinite = true,
            "ponder" => p.ponder = true,
            "searchmoves" => in_searchmoves = true,
            _ if is_keyword => go_value(&mut p, &key, tokens.next())?,
            _ => {
                return Err(CommandError::Unexpected {
                    command: C,
                    token: tok.to_string(),
                });
            }
        }
    }
    if seen.iter().any(|k| k == "searchmoves") && p.searchmoves.is_empty() {
        return Err(CommandError::Missing {
            command: C,
            expected: "moves after `searchmoves`",
        });
    }
    Ok(p)
}

/// Sets `go`'s numeric parameter `key` from the token after it.
fn go_value(p: &mut GoParams, key: &str, value: Option<&str>) -> Result<(), CommandError> {
    const C: &str = "go";
    let time = |v| parse_num(C, key, v, (0u64, MAX_TIME_MS), "milliseconds, 0 or more");
    match key {
        "depth" => {
            p.depth = Some(parse_num(
                C,
                key,
                value,
                (1, MAX_DEPTH),
                "a depth from 1 to 64",
            )?)
        }
        "movetime" => p.movetime = Some(time(value)?),
        "wtime" => p.time[0] = Some(time(value)?),
        "btime" => p.time[1] = Some(time(value)?),
        "winc" => p.inc[0] = Some(time(value)?),
        "binc" => p.inc[1] = Some(time(value)?),
        "movestogo" => {
            p.movestogo = Some(parse_num(
                C,
                key,
                value,
                (1, 100_000),
                "a move count from 1",
            )?)
        }
        "nodes" => {
            p.nodes = Some(parse_num(
                C,
                key,
                value,
                (1, u64::MAX / 2),
                "a node count from 1",
            )?)
        }
        _ => {
            p.mate = Some(parse_num(
                C,
                key,
                value,
                (1, 100),
                "a move count from 1 to 100",
            )?)
        }
    }
    Ok(())
}

fn parse_position<'a>(mut tokens: impl Iterator<Item = &'a str>) -> Result<Command, CommandError> {
    const C: &str = "position";
    let expected = "`startpos` or `fen <FEN>`, then optionally `moves ...`";
    let start = match tokens.next().map(|t| t.to_ascii_lowercase()) {
        Some(t) if t == "startpos" => StartSpec::StartPos,
        Some(t) if t == "fen" => {
            let mut fields = Vec::new();
            for t in tokens.by_ref() {
                if t.eq_ignore_ascii_case("moves") {
                    return Ok(Command::Position {
                        start: StartSpec::Fen(fields.join(" ")),
                        moves: tokens.map(str::to_string).collect(),
                    });
                }
                fields.push(t);
            }
            return Ok(Command::Position {
                start: StartSpec::Fen(fields.join(" ")),
                moves: Vec::new(),
            });
        }
        Some(_) | None => {
            return Err(CommandError::Missing {
                command: C,
                expected,
            });
        }
    };
    let moves = moves_after(tokens).map_err(|t| CommandError::Unexpected {
        command: C,
        token: t.to_string(),
    })?;
    Ok(Command::Position { start, moves })
}

fn parse_setoption(rest: &[&str]) -> Result<Command, CommandError> {
    let (name, value) = split_setoption(rest).ok_or(CommandError::Missing {
        command: "setoption",
        expected: "`name <id> [value <x>]`",
    })?;
    Ok(Command::SetOption { name, value })
}

fn no_more<'a>(
    command: &'static str,
    mut tokens: impl Iterator<Item = &'a str>,
    c: Command,
) -> Result<Command, CommandError> {
    match tokens.next() {
        None => Ok(c),
        Some(t) => Err(CommandError::Unexpected {
            command,
            token: t.to_string(),
        }),
    }
}

impl FromStr for Command {
    type Err = CommandError;

    fn from_str(line: &str) -> Result<Command, CommandError> {
        let all: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = all.first() else {
            return Ok(Command::Nothing);
        };
        let mut tokens = all[1..].iter().copied();
        match first.to_ascii_lowercase().as_str() {
            "uci" => no_more("uci", tokens, Command::Uci),
            "isready" => no_more("isready", tokens, Command::IsReady),
            "ucinewgame" => no_more("ucinewgame", tokens, Command::UciNewGame),
            "stop" => no_more("stop", tokens, Command::Stop),
            "ponderhit" => no_more("ponderhit", tokens, Command::PonderHit),
            "quit" => Ok(Command::Quit),
            "help" => parse_help(tokens),
            "d" => no_more("d", tokens, Command::Display),
            "moves" => no_more("moves", tokens, Command::Moves),
            "tbprobe" => no_more("tbprobe", tokens, Command::TbProbe),
            "setoption" => parse_setoption(&all[1..]),
            "position" => parse_position(tokens),
            "go" => parse_go(tokens).map(Command::Go),
            "perft" => {
                let depth = parse_num(
                    "perft",
                    "depth",
                    tokens.next(),
                    (1, MAX_DEPTH),
                    "a depth from 1 to 64",
                )?;
                no_more("perft", tokens, Command::Perft(depth))
            }
            "bench" => {
                let depth = match tokens.next() {
                    None => None,
                    v => Some(parse_num(
                        "bench",
                        "depth",
                        v,
                        (1, 32),
                        "a depth from 1 to 32",
                    )?),
                };
                no_more("bench", tokens, Command::Bench(depth))
            }
            _ => Err(CommandError::Unknown(first.chars().take(40).collect())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Command, CommandError> {
        s.parse()
    }

    #[test]
    fn simple_commands() {
        assert_eq!(parse("uci"), Ok(Command::Uci));
        assert_eq!(parse("  isready  "), Ok(Command::IsReady));
        assert_eq!(parse(""), Ok(Command::Nothing));
        assert_eq!(parse("perft 7"), Ok(Command::Perft(7)));
        assert_eq!(parse("bench"), Ok(Command::Bench(None)));
        assert!(matches!(
            parse("perft -1"),
            Err(CommandError::BadValue { .. })
        ));
        assert!(matches!(
            parse("perft 99999999999"),
            Err(CommandError::BadValue { .. })
        ));
        assert!(matches!(parse("perft"), Err(CommandError::Missing { .. })));
        assert!(matches!(
            parse("uci now"),
            Err(CommandError::Unexpected { .. })
        ));
        assert_eq!(parse("xyzzy"), Err(CommandError::Unknown("xyzzy".into())));
    }

    #[test]
    fn position_commands() {
        assert_eq!(
            parse("position startpos"),
            Ok(Command::Position {
                start: StartSpec::StartPos,
                moves: vec![]
            })
        );
        assert_eq!(
            parse("position startpos moves d6 a1"),
            Ok(Command::Position {
                start: StartSpec::StartPos,
                moves: vec!["d6".into(), "a1".into()]
            })
        );
        let fen = "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1";
        assert_eq!(
            parse(&format!("position fen {fen} moves d6")),
            Ok(Command::Position {
                start: StartSpec::Fen(fen.into()),
                moves: vec!["d6".into()]
            })
        );
        assert!(matches!(
            parse("position"),
            Err(CommandError::Missing {
                command: "position",
                ..
            })
        ));
        assert!(matches!(
            parse("position startpos d6"),
            Err(CommandError::Unexpected { command: "position", token }) if token == "d6"
        ));
    }

    #[test]
    fn setoption_names_may_have_spaces() {
        assert_eq!(
            parse("setoption name Clear Hash"),
            Ok(Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            })
        );
        assert_eq!(
            parse("setoption name Skill Level value 5"),
            Ok(Command::SetOption {
                name: "Skill Level".into(),
                value: Some("5".into())
            })
        );
        assert!(matches!(
            parse("setoption Hash 5"),
            Err(CommandError::Missing {
                command: "setoption",
                ..
            })
        ));
    }

    #[test]
    fn go_parameters() {
        let Ok(Command::Go(p)) = parse("go wtime 1000 btime 900 winc 10 binc 20 movestogo 5")
        else {
            panic!()
        };
        assert_eq!(p.time, [Some(1000), Some(900)]);
        assert_eq!(p.inc, [Some(10), Some(20)]);
        assert_eq!(p.movestogo, Some(5));
        let Ok(Command::Go(p)) = parse("go searchmoves d6 a1 depth 3") else {
            panic!()
        };
        let moves: Vec<String> = p.searchmoves.iter().map(|m| m.to_string()).collect();
        assert_eq!(moves, ["d6", "a1"]);
        assert!(matches!(
            parse("go searchmoves d6 zz9"),
            Err(CommandError::BadValue { .. })
        ));
        assert_eq!(p.depth, Some(3));
        assert_eq!(parse("go"), Ok(Command::Go(GoParams::default())));
        assert!(matches!(
            parse("go depth 0"),
            Err(CommandError::BadValue { .. })
        ));
        assert!(matches!(
            parse("go depth -3"),
            Err(CommandError::BadValue { .. })
        ));
        assert!(matches!(
            parse("go depth 1000000"),
            Err(CommandError::BadValue { .. })
        ));
        assert!(matches!(
            parse("go movetime abc"),
            Err(CommandError::BadValue { .. })
        ));
        assert!(matches!(
            parse("go wtime"),
            Err(CommandError::Missing { .. })
        ));
        assert!(matches!(
            parse("go depth 3 depth 4"),
            Err(CommandError::Repeated(_))
        ));
        assert!(matches!(
            parse("go fast"),
            Err(CommandError::Unexpected { .. })
        ));
    }
}

//! `help`: the protocol's commands in a few lines, or one command's lines
//! (`help go`); protocol.md has them all.

/// One group of commands in `help`: their names and their lines.
struct Entry {
    names: &'static [&'static str],
    lines: &'static str,
}

const HEAD: &str = "mulino speaks a UCI-style protocol; protocol.md describes every command.";

const ENTRIES: [Entry; 10] = [
    Entry {
        names: &["uci", "isready", "ucinewgame", "quit"],
        lines: "  uci | isready | ucinewgame | quit     handshake, sync, new game, exit",
    },
    Entry {
        names: &["setoption"],
        lines: "  setoption name <id> [value <x>]       options as `uci` lists them",
    },
    Entry {
        names: &["position"],
        lines: "  position startpos|fen <FEN> [moves <m1> ...]",
    },
    Entry {
        names: &["go"],
        lines: "  go [depth N] [movetime MS] [wtime MS btime MS winc MS binc MS]\n     \
                [nodes N] [mate N] [infinite] [ponder] [searchmoves <m> ...]",
    },
    Entry {
        names: &["stop", "ponderhit"],
        lines: "  stop | ponderhit                      end the search, or the pondering",
    },
    Entry {
        names: &["d", "moves"],
        lines: "  d | moves                             show the board, list legal moves",
    },
    Entry {
        names: &["tbprobe"],
        lines: "  tbprobe                               database values (TablebasePath)",
    },
    Entry {
        names: &["perft", "bench"],
        lines: "  perft N | bench [N]                   count the move tree, speed test",
    },
    Entry {
        names: &["help"],
        lines: "  help [command]                        these lines, or one command's",
    },
    Entry {
        names: &[],
        lines: "Moves: `d6` places, `d6-d5` moves, `xb4` after either removes (`d6-d5xb4`).",
    },
];

const TAIL: &str = "From the shell, `mulino --help` lists the tools (match, book, tb, gui, \
                    endgames, tune, pgn, judge); `mulino help TOOL` shows one.";

/// The answer to `help`: every command in a few lines.
pub fn overview() -> String {
    let mut text = String::from(HEAD);
    for entry in &ENTRIES {
        text.push('\n');
        text.push_str(entry.lines);
    }
    text.push('\n');
    text.push_str(TAIL);
    text
}

/// The answer to `help COMMAND` (any case): the lines of its group, or
/// `None` if the protocol has no such command.
pub fn of(command: &str) -> Option<String> {
    let entry = ENTRIES
        .iter()
        .find(|e| e.names.iter().any(|n| n.eq_ignore_ascii_case(command)))?;
    Some(format!(
        "{}\n  (protocol.md, `{}`)",
        entry.lines, entry.names[0]
    ))
}

/// Whether `help` knows the command.
pub fn knows(command: &str) -> bool {
    of(command).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_its_lines() {
        for command in [
            "uci",
            "isready",
            "ucinewgame",
            "quit",
            "setoption",
            "position",
            "go",
            "stop",
            "ponderhit",
            "d",
            "moves",
            "tbprobe",
            "perft",
            "bench",
            "help",
        ] {
            let lines = of(command).unwrap_or_else(|| panic!("no help for {command}"));
            assert!(lines.contains(command), "{command}: {lines}");
            assert!(overview().contains(lines.lines().next().unwrap_or("")));
        }
        assert!(of("GO").is_some_and(|l| l.contains("searchmoves")));
        assert_eq!(of("match"), None);
        assert_eq!(of("Moves:"), None);
    }
}

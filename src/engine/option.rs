//! The engine's options: their typed ids in the order `uci` lists them
//! (the engine's own settings, `Variant`, then the rules core's knobs),
//! their names and kinds, and the settings that are not rules. An option
//! is added here, and set in `Engine::set`.

use crate::core::Variant;
use crate::core::options::{self, OptionKind, RuleOption};

/// Every option, by typed id, in the order `uci` lists them: the engine's
/// own settings, `Variant`, then the rule knobs of the rules core's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineOption {
    Hash,
    ClearHash,
    Threads,
    MultiPv,
    MoveOverhead,
    Ponder,
    SkillLevel,
    ShowCurrMove,
    ShowWdl,
    TablebasePath,
    Variant,
    Rule(RuleOption),
}

impl EngineOption {
    const OWN: [EngineOption; 11] = [
        EngineOption::Hash,
        EngineOption::ClearHash,
        EngineOption::Threads,
        EngineOption::MultiPv,
        EngineOption::MoveOverhead,
        EngineOption::Ponder,
        EngineOption::SkillLevel,
        EngineOption::ShowCurrMove,
        EngineOption::ShowWdl,
        EngineOption::TablebasePath,
        EngineOption::Variant,
    ];

    /// Every option, in the order `uci` lists them.
    pub fn all() -> impl Iterator<Item = EngineOption> {
        Self::OWN
            .into_iter()
            .chain(RuleOption::ALL.into_iter().map(EngineOption::Rule))
    }

    /// The option named `name` (case-insensitive, surrounding blanks
    /// ignored), or by an older name of it (`MoveOverhead`, before it took
    /// Stockfish's `Move Overhead`).
    pub fn from_name(name: &str) -> Option<EngineOption> {
        let name = name.trim();
        if name.eq_ignore_ascii_case("MoveOverhead") {
            return Some(EngineOption::MoveOverhead);
        }
        Self::all().find(|o| o.name().eq_ignore_ascii_case(name))
    }

    pub fn name(self) -> &'static str {
        match self {
            EngineOption::Hash => "Hash",
            EngineOption::ClearHash => "Clear Hash",
            EngineOption::Threads => "Threads",
            EngineOption::MultiPv => "MultiPV",
            EngineOption::MoveOverhead => "Move Overhead",
            EngineOption::Ponder => "Ponder",
            EngineOption::SkillLevel => "Skill Level",
            EngineOption::ShowCurrMove => "ShowCurrMove",
            EngineOption::ShowWdl => "UCI_ShowWDL",
            EngineOption::TablebasePath => "TablebasePath",
            EngineOption::Variant => "Variant",
            EngineOption::Rule(r) => r.name(),
        }
    }

    /// What the option looks like to a GUI, with its default.
    pub fn kind(self) -> OptionKind {
        let d = Settings::default();
        let spin = |default: usize, min, max| OptionKind::Spin {
            default: default as i64,
            min,
            max,
        };
        match self {
            EngineOption::Hash => spin(d.hash_mb, 1, MAX_HASH_MB),
            EngineOption::ClearHash => OptionKind::Button,
            EngineOption::Threads => spin(d.threads, 1, MAX_THREADS),
            EngineOption::MultiPv => spin(d.multipv, 1, 256),
            EngineOption::MoveOverhead => spin(d.move_overhead as usize, 0, 5000),
            EngineOption::Ponder => OptionKind::Check { default: d.ponder },
            EngineOption::SkillLevel => spin(d.skill.into(), 0, 20),
            EngineOption::ShowCurrMove => OptionKind::Check {
                default: d.show_currmove,
            },
            EngineOption::ShowWdl => OptionKind::Check {
                default: d.show_wdl,
            },
            EngineOption::TablebasePath => OptionKind::Text { default: "" },
            EngineOption::Variant => options::variant_kind(),
            EngineOption::Rule(r) => r.kind(),
        }
    }
}

/// The largest `Hash` and `Threads`. WebAssembly has one thread, and a
/// module's memory is at most 4 GB, of which hosts give less (Node 20
/// refused a 2048 MB table; protocol.md, §13).
#[cfg(not(target_family = "wasm"))]
const MAX_HASH_MB: i64 = 32768;
#[cfg(not(target_family = "wasm"))]
const MAX_THREADS: i64 = 256;
#[cfg(target_family = "wasm")]
const MAX_HASH_MB: i64 = 1024;
#[cfg(target_family = "wasm")]
const MAX_THREADS: i64 = 1;

/// Engine settings that are not rules.
#[derive(Clone, Debug)]
pub struct Settings {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead: u64,
    pub ponder: bool,
    pub skill: u8,
    pub show_currmove: bool,
    /// Whether info lines carry `wdl W D L` after the score.
    pub show_wdl: bool,
    /// The directory of the endgame databases (empty: none).
    pub tablebase_path: String,
    /// The preset last chosen with `Variant` (the rule knobs may differ
    /// from it since).
    pub variant: Variant,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            hash_mb: 64,
            threads: 1,
            multipv: 1,
            move_overhead: 30,
            ponder: false,
            skill: 20,
            show_currmove: false,
            show_wdl: false,
            tablebase_path: String::new(),
            variant: Variant::Nine,
        }
    }
}

//! One engine as `--engine` describes it: the program, its name, its own
//! options, its search limits, the dialect it speaks and its time margin.

use std::path::PathBuf;

use super::dialect::mulino::Mulino;
use super::dialect::{Dialect, setoption};
use super::limits::Limits;
use crate::matches::rules::RuleSet;

/// One engine as `--engine` gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    pub cmd: PathBuf,
    pub name: Option<String>,
    pub args: Vec<String>,
    pub dir: Option<PathBuf>,
    /// `option.NAME=VALUE`, sent as `setoption` after the rule options.
    pub options: Vec<(String, String)>,
    pub limits: Limits,
    /// `proto=`: the protocol it speaks.
    pub dialect: &'static dyn Dialect,
    /// `margin=MS`: how long past its allowance (clock or movetime) a
    /// move may arrive before this engine loses on time; `None`: with a
    /// time control `--time-margin`, with movetime no forfeit (an
    /// overrun is only counted).
    pub margin: Option<u64>,
}

impl EngineSpec {
    /// The program `cmd`, speaking mulino's protocol, with nothing else
    /// set.
    pub fn new(cmd: PathBuf) -> EngineSpec {
        EngineSpec {
            cmd,
            name: None,
            args: Vec::new(),
            dir: None,
            options: Vec::new(),
            limits: Limits::default(),
            dialect: &Mulino,
            margin: None,
        }
    }

    /// How messages name the engine before it has started: its `name=`,
    /// else its command.
    pub fn label(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| self.cmd.display().to_string())
    }

    /// The `setoption` lines it gets after the handshake: the rules in
    /// its dialect's terms, then its own options.
    pub fn setup_lines(&self, rule_set: &RuleSet) -> Vec<String> {
        let own = self
            .options
            .iter()
            .map(|(name, value)| setoption(name, value));
        let mut lines = self.dialect.rule_lines(rule_set);
        lines.extend(own);
        lines
    }
}

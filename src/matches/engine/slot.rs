//! A game slot: one process per engine for the games one worker thread
//! plays, started on first use (the handshake, the rules and the engine's
//! own options, `isready`, each in its dialect) and restarted after a
//! fault.

use std::sync::Arc;
use std::time::Duration;

use super::process::{EngineProcess, Failure, Registry};
use super::spec::EngineSpec;
use crate::matches::rules::RuleSet;

/// Why an engine could not be started or readied: a sentence.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// It did not start, or went away.
    #[error("{0}")]
    Crashed(String),
    /// It gave no answer in time.
    #[error("{0}")]
    Silent(String),
}

impl StartError {
    /// The error for an engine that died (`Gone`) before `doing`, or gave
    /// no answer to `command` within `timeout`.
    fn new(f: Failure, doing: &str, command: &str, timeout: Duration) -> StartError {
        match f {
            Failure::Gone(how) => StartError::Crashed(format!("{how} before {doing}")),
            Failure::Timeout => StartError::Silent(format!(
                "no answer to `{command}` within {} ms",
                timeout.as_millis()
            )),
        }
    }
}

/// The processes of one worker thread, indexed like `specs`.
pub struct Slot<'a> {
    specs: &'a [EngineSpec],
    /// The rules every engine is told.
    rule_set: &'a RuleSet,
    /// How long an engine may take to answer its handshake and `isready`.
    init_timeout: Duration,
    registry: &'a Arc<Registry>,
    engines: Vec<Option<EngineProcess>>,
}

impl<'a> Slot<'a> {
    /// A slot with no process yet.
    pub fn new(
        specs: &'a [EngineSpec],
        rule_set: &'a RuleSet,
        init_timeout: Duration,
        registry: &'a Arc<Registry>,
    ) -> Slot<'a> {
        Slot {
            specs,
            rule_set,
            init_timeout,
            registry,
            engines: specs.iter().map(|_| None).collect(),
        }
    }

    /// Engine `index`'s process, if it has one.
    pub fn engine(&mut self, index: usize) -> Option<&mut EngineProcess> {
        self.engines[index].as_mut()
    }

    /// Starts engine `index` and makes it ready to play, keeping its
    /// process.
    pub fn start(&mut self, index: usize) -> Result<&mut EngineProcess, StartError> {
        let process = self.launch(index)?;
        Ok(self.engines[index].insert(process))
    }

    /// A new process of engine `index`, ready to play: its handshake, its
    /// setup lines, `isready`.
    fn launch(&self, index: usize) -> Result<EngineProcess, StartError> {
        let spec = &self.specs[index];
        let timeout = self.init_timeout;
        let spawned =
            EngineProcess::spawn(&spec.cmd, &spec.args, spec.dir.as_deref(), self.registry);
        let mut process = spawned.map_err(|e| {
            StartError::Crashed(format!("cannot start `{}`: {e}", spec.cmd.display()))
        })?;
        let failed =
            |what: &str, f| StartError::new(f, &format!("answering `{what}`"), what, timeout);
        let hello = spec.dialect.hello();
        process
            .handshake(timeout, hello)
            .map_err(|f| failed(hello.0, f))?;
        for line in spec.setup_lines(self.rule_set) {
            process.send(&line);
        }
        process.sync(timeout).map_err(|f| failed("isready", f))?;
        Ok(process)
    }

    /// Gets engine `index` ready for a new game: started if needed, then
    /// the dialect's new-game command and `isready`. A failure leaves no
    /// process behind.
    pub fn prepare(&mut self, index: usize) -> Result<(), StartError> {
        let mut process = match self.engines[index].take() {
            Some(p) => p,
            None => self.launch(index)?,
        };
        let new_game = self.specs[index].dialect.new_game();
        let ready = process.drain().and_then(|_| {
            process.send(new_game);
            process.sync(self.init_timeout)
        });
        match ready {
            Ok(()) => {
                self.engines[index] = Some(process);
                Ok(())
            }
            Err(f) => {
                process.kill();
                Err(StartError::new(
                    f,
                    "a new game",
                    new_game,
                    self.init_timeout,
                ))
            }
        }
    }

    /// Kills engine `index` after a fault; the next game starts a new one.
    pub fn discard(&mut self, index: usize) {
        if let Some(p) = self.engines[index].take() {
            p.kill();
        }
    }
}

//! A game slot: one process per engine for the games one worker thread
//! plays, started on first use (`uci`, the variant and rule options, the
//! engine's own options, `isready`) and restarted after a fault.

use std::sync::Arc;

use super::config::Config;
use super::dialect::option_lines;
use super::process::{EngineProcess, Failure, Registry};
use super::record::Fault;

/// Why an engine could not be started, as a fault and a sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartError {
    pub fault: Fault,
    pub detail: String,
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

impl std::error::Error for StartError {}

/// Starts engine `index` of the config and makes it ready to play.
pub fn start_engine(
    config: &Config,
    index: usize,
    registry: &Arc<Registry>,
) -> Result<EngineProcess, StartError> {
    let spec = &config.engines[index];
    let mut process = EngineProcess::spawn(spec, registry).map_err(|e| StartError {
        fault: Fault::Crash,
        detail: format!("cannot start `{}`: {e}", spec.cmd.display()),
    })?;
    let failed = |what: &str, f| start_error(f, &format!("answering `{what}`"), what, config);
    process
        .handshake(config.init_timeout, spec.proto)
        .map_err(|f| failed(spec.proto.hello().0, f))?;
    for line in option_lines(config, index) {
        process.send(&line);
    }
    process
        .sync(config.init_timeout)
        .map_err(|f| failed("isready", f))?;
    Ok(process)
}

/// The fault for an engine that died (`Gone`) before `doing`, or gave no
/// answer to `command` in time.
fn start_error(f: Failure, doing: &str, command: &str, config: &Config) -> StartError {
    match f {
        Failure::Gone(how) => StartError {
            fault: Fault::Crash,
            detail: format!("{how} before {doing}"),
        },
        Failure::Timeout => StartError {
            fault: Fault::Hang,
            detail: format!(
                "no answer to `{command}` within {} ms",
                config.init_timeout.as_millis()
            ),
        },
    }
}

/// The processes of one worker thread, indexed like `config.engines`.
pub struct Slot {
    pub engines: Vec<Option<EngineProcess>>,
}

impl Slot {
    pub fn new(count: usize) -> Slot {
        Slot {
            engines: (0..count).map(|_| None).collect(),
        }
    }

    /// Gets engine `index` ready for a new game: started if needed, then
    /// `ucinewgame` and `isready`. A failure leaves no process behind.
    pub fn prepare(
        &mut self,
        config: &Config,
        index: usize,
        registry: &Arc<Registry>,
    ) -> Result<(), StartError> {
        let mut process = match self.engines[index].take() {
            Some(p) => p,
            None => start_engine(config, index, registry)?,
        };
        let ready = process.drain().and_then(|_| {
            process.send(config.engines[index].proto.new_game());
            process.sync(config.init_timeout)
        });
        match ready {
            Ok(()) => {
                self.engines[index] = Some(process);
                Ok(())
            }
            Err(f) => {
                process.kill();
                let new_game = config.engines[index].proto.new_game();
                Err(start_error(f, "a new game", new_game, config))
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

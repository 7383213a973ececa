//! The engines a match runs: what `--engine` says of one ([`spec`], with
//! its search [`limits`]), the protocols they speak ([`dialect`]), their
//! processes ([`process`]) and the set of them that one worker thread
//! plays its games with ([`slot`]).

pub mod dialect;
pub mod limits;
pub mod process;
pub mod slot;
pub mod spec;

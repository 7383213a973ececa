//! Match statistics: the results counted as the first engine's
//! wins, draws and losses and as pentanomial pair counts, the Elo they
//! give with its error margin and the likelihood of superiority
//! ([`elo`]), and the sequential probability ratio test ([`sprt`]).

pub mod elo;
pub mod sprt;

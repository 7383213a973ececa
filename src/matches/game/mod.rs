//! One game: the referee that plays it between two engine processes under
//! the rules core ([`referee`]), the record kept while it is played
//! ([`recorder`]) and what it leaves behind ([`record`]).

pub mod record;
pub mod recorder;
pub mod referee;

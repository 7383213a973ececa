//! Time management: how long to think, from the clock or a fixed movetime.

use std::time::Duration;

use super::params::TIME;

/// The clock as `go` gave it, for the side to move.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clock {
    pub time_left: Option<u64>,
    pub increment: u64,
    pub moves_to_go: Option<u32>,
    pub movetime: Option<u64>,
}

/// The two limits of one search: once half of `soft` has passed no new
/// iteration starts (the next one would not finish in time), at `hard`
/// the search stops wherever it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub soft: Duration,
    pub hard: Duration,
}

/// The budget for a move, or `None` when the clock sets no limit.
/// `placements_left` is how many pieces the side to move still has in
/// hand; `overhead` is the GUI's and the pipe's latency allowance.
pub fn budget(clock: &Clock, placements_left: u32, overhead_ms: u64) -> Option<Budget> {
    if let Some(mt) = clock.movetime {
        // Return a little early so the reply arrives within the movetime.
        let t = Duration::from_millis(mt.saturating_sub(overhead_ms.min(mt / 4) + 2).max(1));
        return Some(Budget { soft: t, hard: t });
    }
    let left = clock.time_left?;
    let usable = left.saturating_sub(overhead_ms).max(1);
    let moves_to_go = match clock.moves_to_go {
        Some(n) => n as u64,
        None => placements_left as u64 + TIME.moves_to_go_moving,
    }
    .max(1);
    let mut base = usable / moves_to_go + clock.increment * 3 / 4;
    if placements_left > 0 {
        base = base * TIME.placing_bonus_pct / 100;
    }
    let cap = usable * TIME.max_share_pct / 100;
    let soft = base.min(cap).max(1);
    let hard = (soft * TIME.hard_factor).min(cap.max(1)).max(soft);
    Some(Budget {
        soft: Duration::from_millis(soft),
        hard: Duration::from_millis(hard),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movetime_is_respected() {
        let b = budget(
            &Clock {
                movetime: Some(1000),
                ..Clock::default()
            },
            0,
            30,
        )
        .unwrap();
        assert!(b.hard <= Duration::from_millis(1000));
        assert!(b.hard >= Duration::from_millis(900));
    }

    #[test]
    fn clock_share_is_bounded_and_larger_while_placing() {
        let clock = Clock {
            time_left: Some(1000),
            increment: 10,
            ..Clock::default()
        };
        let placing = budget(&clock, 9, 30).unwrap();
        let moving = budget(&clock, 0, 30).unwrap();
        assert!(placing.hard <= Duration::from_millis(300));
        assert!(moving.hard <= Duration::from_millis(300));
        assert!(placing.soft * 30 > moving.soft * 9 * 30 / 39);
        assert!(budget(&Clock::default(), 0, 30).is_none());
        let tiny = budget(
            &Clock {
                time_left: Some(5),
                ..Clock::default()
            },
            0,
            30,
        )
        .unwrap();
        assert!(tiny.hard <= Duration::from_millis(5));
    }
}

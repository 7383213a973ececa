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
/// the search stops wherever it is. A fixed movetime sets `soft` to twice
/// `hard`: new iterations start until the time is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub soft: Duration,
    pub hard: Duration,
}

/// The budget for a move, or `None` when the clock sets no limit.
/// `placements_left` is how many pieces the side to move still has in
/// hand; `overhead` is the GUI's and the pipe's latency allowance.
///
/// All arithmetic saturates, so any clock a caller passes (the protocol
/// caps what it accepts, a library caller may not) gives a budget no
/// longer than the time left.
pub fn budget(clock: &Clock, placements_left: u32, overhead_ms: u64) -> Option<Budget> {
    if let Some(mt) = clock.movetime {
        // Return a little early so the reply arrives within the movetime.
        let t = mt.saturating_sub((overhead_ms.min(mt / 4)).saturating_add(2));
        let t = Duration::from_millis(t.max(1));
        // Time left over at a fixed movetime is lost, so a new iteration
        // may start until the end: soft is twice hard, and the search
        // stops only at hard (a partial iteration keeps what it found).
        return Some(Budget {
            soft: t.saturating_mul(2),
            hard: t,
        });
    }
    let left = clock.time_left?;
    let usable = left.saturating_sub(overhead_ms).max(1);
    let moves_to_go = match clock.moves_to_go {
        Some(n) => n as u64,
        None => (placements_left as u64).saturating_add(TIME.moves_to_go_moving),
    }
    .max(1);
    // `x * num / den` in 128 bits, saturated back to 64.
    let scale = |x: u64, num: u64, den: u64| -> u64 {
        u64::try_from(x as u128 * num as u128 / den as u128).unwrap_or(u64::MAX)
    };
    let mut base = (usable / moves_to_go).saturating_add(scale(clock.increment, 3, 4));
    if placements_left > 0 {
        base = scale(base, TIME.placing_bonus_pct, 100);
    }
    let cap = scale(usable, TIME.max_share_pct, 100).max(1);
    let soft = base.min(cap).max(1);
    let hard = soft.saturating_mul(TIME.hard_factor).min(cap).max(soft);
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
        // New iterations start until the time is up.
        assert_eq!(b.soft, 2 * b.hard);
    }

    #[test]
    fn clock_share_is_bounded_and_larger_while_placing() {
        let clock = Clock {
            time_left: Some(10_000),
            increment: 100,
            ..Clock::default()
        };
        let ms = |d: Duration| d.as_millis() as u64;
        // Moving: (10000 - 30) / 30 moves to go + 3/4 of the increment.
        let moving = budget(&clock, 0, 30).unwrap();
        assert_eq!(ms(moving.soft), 9970 / 30 + 75);
        assert_eq!(ms(moving.hard), ms(moving.soft) * TIME.hard_factor);
        // Placing with 8 in hand: 38 moves to go, times the placing bonus,
        // and the hard limit capped at 30% of the time left.
        let placing = budget(&clock, 8, 30).unwrap();
        let base = (9970 / 38 + 75) * TIME.placing_bonus_pct / 100;
        let cap = 9970 * TIME.max_share_pct / 100;
        assert_eq!(ms(placing.soft), base.min(cap));
        assert_eq!(ms(placing.hard), (base * TIME.hard_factor).min(cap));
        assert!(placing.soft > moving.soft, "{placing:?} vs {moving:?}");
        // No clock, no budget.
        assert!(budget(&Clock::default(), 0, 30).is_none());
        // A nearly empty clock still gives a budget within it.
        let tiny = budget(
            &Clock {
                time_left: Some(5),
                ..Clock::default()
            },
            9,
            30,
        )
        .unwrap();
        assert!(tiny.hard <= Duration::from_millis(5));
        assert!(tiny.soft >= Duration::from_millis(1));
    }

    /// A library caller may pass any numbers: no overflow (a panic in a
    /// debug build), and never more than the time left.
    #[test]
    fn absurd_clocks_saturate() {
        for (left, inc, mtg, placing) in [
            (u64::MAX, u64::MAX, None, 9),
            (u64::MAX, 0, Some(1), 0),
            (1, u64::MAX, None, 0),
            (u64::MAX / 3, u64::MAX / 2, Some(u32::MAX), u32::MAX),
        ] {
            let clock = Clock {
                time_left: Some(left),
                increment: inc,
                moves_to_go: mtg,
                movetime: None,
            };
            let b = budget(&clock, placing, u64::MAX).unwrap();
            assert!(b.soft <= b.hard);
            assert!(b.hard <= Duration::from_millis(left.max(1)), "{b:?}");
        }
        let b = budget(
            &Clock {
                movetime: Some(u64::MAX),
                ..Clock::default()
            },
            0,
            u64::MAX,
        )
        .unwrap();
        assert!(b.hard < Duration::from_millis(u64::MAX));
    }
}

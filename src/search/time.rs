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

/// How the clock is shared between the phases of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Phases {
    /// Pieces a side places in all.
    pub pieces: u32,
    /// Pieces the side to move still has in hand.
    pub placements_left: u32,
    /// The share of the clock (percent) a whole placing phase may use.
    pub placing_share_pct: u64,
}

impl Phases {
    /// The moving phase (or nothing left to place).
    pub const MOVING: Phases = Phases {
        pieces: 9,
        placements_left: 0,
        placing_share_pct: 0,
    };

    /// `placements_left` of `pieces`, with the share for databases in use
    /// or not.
    pub fn placing(pieces: u32, placements_left: u32, databases: bool) -> Phases {
        Phases {
            pieces: pieces.max(1),
            placements_left,
            placing_share_pct: if databases {
                TIME.placing_share_db_pct
            } else {
                TIME.placing_share_pct
            },
        }
    }
}

/// The budget for a move, or `None` when the clock sets no limit;
/// `overhead` is the GUI's and the pipe's latency allowance.
///
/// Under sudden death (no moves to go), a placement weighs `w` moves of
/// the moving phase, chosen so that the whole placing phase takes about
/// `placing_share_pct` of the clock and the moving phase, taken as
/// `moves_to_go_moving` moves, the rest: with `n` placements left (this
/// one included), `P` pieces a side and share `S`, a placement gets the
/// time left times `S / (n S + P (100 - S))`, a move of the moving phase
/// the time left over `moves_to_go_moving`; three quarters of the
/// increment come on top.
///
/// All arithmetic saturates, so any clock a caller passes (the protocol
/// caps what it accepts, a library caller may not) gives a budget no
/// longer than the time left.
pub fn budget(clock: &Clock, phases: Phases, overhead_ms: u64) -> Option<Budget> {
    let placements_left = phases.placements_left;
    if let Some(mt) = clock.movetime {
        // Return a little early so the reply arrives within the movetime,
        // but keep at least 95% of it: the latency allowance is meant for
        // a clock, and at 100 ms it used to take a quarter of the search.
        let t = mt.saturating_sub((overhead_ms.min(mt / 20)).saturating_add(2));
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
    // `x * num / den` in 128 bits, saturated back to 64.
    let scale = |x: u64, num: u64, den: u64| -> u64 {
        u64::try_from(x as u128 * num as u128 / den.max(1) as u128).unwrap_or(u64::MAX)
    };
    let share = phases.placing_share_pct.min(99);
    let per_move = match (clock.moves_to_go, placements_left) {
        (Some(n), 0) => usable / (n as u64).max(1),
        (Some(n), _) => scale(usable / (n as u64).max(1), TIME.placing_bonus_pct, 100),
        (None, 0) => usable / TIME.moves_to_go_moving.max(1),
        (None, n) => {
            let den = (n as u64)
                .saturating_mul(share)
                .saturating_add((phases.pieces as u64).saturating_mul(100 - share));
            scale(usable, share.max(1), den)
        }
    };
    let base = per_move.saturating_add(scale(clock.increment, 3, 4));
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

    /// The budget of `go movetime ms` with the default overhead of 30 ms.
    fn movetime_budget(ms: u64) -> Budget {
        let clock = Clock {
            movetime: Some(ms),
            ..Clock::default()
        };
        budget(&clock, Phases::MOVING, 30).unwrap()
    }

    #[test]
    fn movetime_is_respected() {
        let b = movetime_budget(1000);
        assert!(b.hard <= Duration::from_millis(1000));
        assert!(b.hard >= Duration::from_millis(900));
        // New iterations start until the time is up.
        assert_eq!(b.soft, 2 * b.hard);
    }

    #[test]
    fn a_short_movetime_is_not_eaten_by_the_overhead() {
        for (movetime, hard) in [(100, 93), (50, 46), (1000, 968), (20, 17), (1, 1)] {
            let b = movetime_budget(movetime);
            assert_eq!(b.hard, Duration::from_millis(hard), "movetime {movetime}");
        }
    }

    /// The budgets a side would take, move after move, at sudden death
    /// with every soft limit used up: the time used by the end of
    /// placing, and what is left after it.
    fn placing_spend(total_ms: u64, databases: bool) -> (u64, u64) {
        let mut left = total_ms;
        for n in (1..=9).rev() {
            let clock = Clock {
                time_left: Some(left),
                ..Clock::default()
            };
            let b = budget(&clock, Phases::placing(9, n, databases), 0).unwrap();
            left -= b.soft.as_millis() as u64;
        }
        (total_ms - left, left)
    }

    #[test]
    fn the_placing_phase_takes_its_share_of_a_sudden_death_clock() {
        // Without databases about half the clock goes into placing (the
        // old rule spent 140 of 180 seconds there), with them, whose
        // moving phase costs nothing, about 70%.
        let shares = [
            (false, TIME.placing_share_pct),
            (true, TIME.placing_share_db_pct),
        ];
        for (databases, share) in shares {
            let (used, left) = placing_spend(180_000, databases);
            let pct = used * 100 / 180_000;
            assert!(
                pct.abs_diff(share) <= 4,
                "{databases}: {pct}% used, {left} ms left"
            );
        }
        // Each placement gets more of what is left than the one before
        // (the phase's end draws nearer), and a moving move the time left
        // over 30.
        let at = |n, left| {
            let clock = Clock {
                time_left: Some(left),
                ..Clock::default()
            };
            budget(&clock, Phases::placing(9, n, false), 0)
                .unwrap()
                .soft
        };
        assert!(at(1, 100_000) > at(9, 100_000));
        let moving = budget(
            &Clock {
                time_left: Some(90_000),
                ..Clock::default()
            },
            Phases::MOVING,
            0,
        )
        .unwrap();
        assert_eq!(moving.soft, Duration::from_millis(3_000));
    }

    #[test]
    fn clock_share_is_bounded_and_the_increment_counts() {
        let clock = Clock {
            time_left: Some(10_000),
            increment: 100,
            ..Clock::default()
        };
        let ms = |d: Duration| d.as_millis() as u64;
        // Moving: (10000 - 30) / 30 moves to go + 3/4 of the increment.
        let moving = budget(&clock, Phases::MOVING, 30).unwrap();
        assert_eq!(ms(moving.soft), 9970 / 30 + 75);
        assert_eq!(ms(moving.hard), ms(moving.soft) * TIME.hard_factor);
        // Placing with 8 in hand, and the hard limit capped at 30% of the
        // time left.
        let placing = budget(&clock, Phases::placing(9, 8, false), 30).unwrap();
        let share = TIME.placing_share_pct;
        let base = 9970 * share / (8 * share + 9 * (100 - share)) + 75;
        let cap = 9970 * TIME.max_share_pct / 100;
        assert_eq!(ms(placing.soft), base.min(cap));
        assert_eq!(ms(placing.hard), (base * TIME.hard_factor).min(cap));
        // With moves to go, the GUI's count and the placing bonus.
        let mtg = Clock {
            moves_to_go: Some(20),
            ..clock
        };
        let placing = budget(&mtg, Phases::placing(9, 8, false), 30).unwrap();
        assert_eq!(
            ms(placing.soft),
            9970 / 20 * TIME.placing_bonus_pct / 100 + 75
        );
        // No clock, no budget.
        assert!(budget(&Clock::default(), Phases::MOVING, 30).is_none());
        // A nearly empty clock still gives a budget within it.
        let tiny = budget(
            &Clock {
                time_left: Some(5),
                ..Clock::default()
            },
            Phases::placing(9, 9, false),
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
            for pieces in [0, 9, u32::MAX] {
                let phases = Phases::placing(pieces, placing, pieces == 9);
                let b = budget(&clock, phases, u64::MAX).unwrap();
                assert!(b.soft <= b.hard);
                assert!(b.hard <= Duration::from_millis(left.max(1)), "{b:?}");
            }
        }
        let b = budget(
            &Clock {
                movetime: Some(u64::MAX),
                ..Clock::default()
            },
            Phases::MOVING,
            u64::MAX,
        )
        .unwrap();
        assert!(b.hard < Duration::from_millis(u64::MAX));
    }
}

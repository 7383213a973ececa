//! The command line of `mulino tb`: its subcommands and their options,
//! each value typed by clap as it is read.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::{endgames, wdl};
use crate::core::Variant;
use crate::tb::format::Kind;
use crate::tb::index::{MAX_PIECES, MIN_PIECES};
use crate::tb::placing::LAYERS;

#[derive(Args, Debug)]
pub struct TbArgs {
    #[command(subcommand)]
    pub command: TbCommand,
}

#[derive(Subcommand, Debug)]
pub enum TbCommand {
    /// Build databases bottom-up (finished files are kept, never rebuilt).
    Build(BuildArgs),
    /// The build as a graph of jobs, for a scheduler (docs/databases.md,
    /// "Building on a cluster").
    Plan(PlanArgs),
    /// Recompute every stored value from its successors.
    Verify(VerifyArgs),
    /// Wins, losses, draws per symmetry class and longest distances.
    Stats(StatsArgs),
    /// Check the values under N-move rules against a rule-aware minimax
    /// of its own, for every position and counter.
    Nmove(NmoveArgs),
    /// Sample the endgame benchmark's positions (`mulino endgames`) from
    /// the files: won and drawn, each with a move that throws it away.
    Endgames(endgames::EndgamesArgs),
    /// Fit the map from the search's score to win, draw and loss shares
    /// (`UCI_ShowWDL`) on the files' exact values of Nine Men's Morris's
    /// moving phase, and print it as Rust (docs/strength.md).
    Wdl(wdl::WdlArgs),
    /// Pack the `.wdz` files of one N-move rule and the placing layers
    /// into a folder of small compressed blocks, for any static web host
    /// (docs/databases.md, "Packed folders").
    Pack(PackArgs),
    /// Compare every position of a folder's files with a packed folder
    /// made from them.
    Compare(CompareArgs),
}

#[derive(Args, Debug)]
pub struct PackArgs {
    /// The folder of the files to pack.
    #[arg(long)]
    pub dir: PathBuf,
    /// The packed folder to write (new, or without a manifest yet).
    #[arg(long)]
    pub out: PathBuf,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Slots a block holds (a power of two from 4096 to 1048576).
    #[arg(long, default_value_t = crate::tb::pack::write::DEFAULT_BLOCK_SLOTS,
          value_parser = parse_block_slots, hide = true)]
    pub block_slots: u64,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The folder of the files the pack was made from.
    #[arg(long)]
    pub dir: PathBuf,
    /// The packed folder.
    #[arg(long)]
    pub pack: PathBuf,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Only these tables (`W-B` or `place-K`, comma-separated); default:
    /// every table of the pack.
    #[arg(long, value_delimiter = ',')]
    pub tables: Vec<String>,
    /// The decoded blocks kept in memory, GiB (a derived table's check
    /// wants the tables it reads decoded whole).
    #[arg(long, default_value_t = 8.0)]
    pub cache: f64,
}

/// A block size: a power of two from 4096 to 1048576 slots.
fn parse_block_slots(s: &str) -> Result<u64, String> {
    s.trim()
        .parse::<u64>()
        .ok()
        .filter(|n| n.is_power_of_two() && (1 << 12..=1 << 20).contains(n))
        .ok_or_else(|| format!("`{s}`: a power of two from 4096 to 1048576"))
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Only these placing layers (`K,...`, 0 to 17); with `--subspaces`
    /// alone no placing layer, with `--layers` alone no subspace;
    /// default: every file in the directory.
    #[arg(long, value_delimiter = ',', value_parser = parse_layer)]
    pub layers: Vec<u8>,
    /// Leave beside each file that passes a note that it did
    /// (`NAME.verified`), and take the note of one that fails away: the
    /// outputs of a plan's check jobs (`tb plan --check`).
    #[arg(long)]
    pub stamp: bool,
    /// Only the moving-phase files of these kinds (as `tb build
    /// --files`); default: every kind in the directory.
    #[arg(long, value_enum)]
    pub files: Option<Files>,
}

#[derive(Args, Debug)]
pub struct NmoveArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// The limits to check, each as both NMoveRule and EndgameNMoveRule.
    #[arg(long, value_delimiter = ',', default_value = "100")]
    pub limits: Vec<u16>,
}

#[derive(Args, Debug)]
pub struct CommonArgs {
    /// The directory of the database files.
    #[arg(long, default_value = "tb")]
    pub dir: PathBuf,
    /// The rules (a variant name); their moving-phase rules must be
    /// supported and match the files.
    #[arg(long, default_value = "nine")]
    pub variant: Variant,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Only these subspaces (`W-B,...`); default: every file in the directory.
    #[arg(long, value_delimiter = ',', value_parser = parse_subspace)]
    pub subspaces: Vec<(u8, u8)>,
}

#[derive(Args, Debug)]
pub struct BuildArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Every subspace with at most N pieces a side (3..=9).
    #[arg(long, conflicts_with = "subspaces", value_parser = clap::value_parser!(u8).range(3..=9))]
    pub pieces: Option<u8>,
    /// The most memory a subspace pair (or a placing layer) may use, GiB.
    #[arg(long, default_value_t = 16.0)]
    pub memory: f64,
    /// Which files: `tb` (values and distances to the end), `dtz`
    /// (distances to the next removal, for the N-move rules; they need
    /// the `tb` files) or `both`, pair by pair; or `wdz` (the values
    /// under the `--n-move` rule alone, with the distances to the next
    /// removal: all the whole game under one rule needs, in about half
    /// the time of `both`).
    #[arg(long, value_enum, default_value_t = Files::Both)]
    pub files: Files,
    /// The N-move rule the `.dtz` files (and the placing phase) are
    /// exact for: `NMoveRule`, and `EndgameNMoveRule` (the same unless
    /// `--endgame-n-move` says). A pair whose smaller subspaces the rule
    /// never draws from a counter of 0 gets files good for every such
    /// limit (`mulino-W-B.dtz`); the others files for this one
    /// (`mulino-W-B-n100-100.dtz`).
    #[arg(long, default_value_t = 100)]
    pub n_move: u16,
    /// The `EndgameNMoveRule` (the limit while a side has three pieces)
    /// the files are exact for, where it differs from `--n-move`; default:
    /// the same as `--n-move`.
    #[arg(long)]
    pub endgame_n_move: Option<u16>,
    /// Build the placing phase too (layers 17 down to 0, after the moving
    /// phase), which needs the moving-phase files up to 9-9 for the
    /// `--n-move` rule (`.wdz`, or `.tb` and `.dtz`).
    #[arg(long)]
    pub placing: bool,
    /// Build only the placing sectors where each side has at most N
    /// pieces, on board and in hand together (for small test sets; the
    /// moving phase up to N-N must be there).
    #[arg(long, default_value_t = 9, hide = true)]
    pub placing_max: u8,
    /// Build only this job of the plan of these options (`moving-X-Y`
    /// or `place-K`, as `tb plan` names them); its inputs must be there
    /// (exit status 3 if one is missing).
    #[arg(long)]
    pub job: Option<String>,
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    #[command(flatten)]
    pub build: BuildArgs,
    /// `json`, `waves` (one command a line, waves apart by a blank line)
    /// or `slurm` (a bash script that submits the missing jobs).
    #[arg(long, value_enum, default_value_t = super::plan::PlanFormat::Json)]
    pub format: super::plan::PlanFormat,
    /// A check after every build job (`check-ID`: `tb verify --stamp` of
    /// what the job built), run beside the next builds; its outputs are
    /// the notes `NAME.verified` beside the files that passed.
    #[arg(long)]
    pub check: bool,
}

#[derive(Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Compare with a table in the columns of published.tsv; exit non-zero
    /// on any difference.
    #[arg(long, value_name = "TSV")]
    pub compare: Option<PathBuf>,
    /// N-move limits (as both NMoveRule and EndgameNMoveRule) for which to
    /// count, from the `.dtz` files, the wins and losses the rule draws.
    #[arg(long, value_delimiter = ',', default_value = "40,60,100")]
    pub limits: Vec<u16>,
}

/// Which files `tb build` makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Files {
    /// Values and distances to the end (`.tb`).
    Tb,
    /// Distances to the next removal (`.dtz`; they need the `.tb` files).
    Dtz,
    /// `.tb` and `.dtz`, pair by pair.
    Both,
    /// The values under the `--n-move` rule with the distances to the
    /// next removal (`.wdz`).
    Wdz,
}

impl Files {
    /// The kinds of file built, in the order a pair's are built.
    pub fn kinds(self) -> &'static [Kind] {
        match self {
            Files::Tb => &[Kind::ToEnd],
            Files::Dtz => &[Kind::ToRemoval],
            Files::Wdz => &[Kind::UnderRule],
            Files::Both => &[Kind::ToEnd, Kind::ToRemoval],
        }
    }
}

/// A subspace `W-B`, 3 to 9 pieces a side.
fn parse_subspace(s: &str) -> Result<(u8, u8), String> {
    let bad = || format!("subspace `{s}` is not W-B with 3 <= W, B <= 9");
    let (a, b) = s.trim().split_once('-').ok_or_else(bad)?;
    let (a, b): (u8, u8) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
    let range = MIN_PIECES..=MAX_PIECES;
    if !range.contains(&a) || !range.contains(&b) {
        return Err(bad());
    }
    Ok((a, b))
}

/// A placing layer, 0 to 17.
fn parse_layer(s: &str) -> Result<u8, String> {
    s.trim()
        .parse::<u8>()
        .ok()
        .filter(|&k| k < LAYERS)
        .ok_or_else(|| format!("placing layers are 0 to {}", LAYERS - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subspaces_and_layers_read_in_range() {
        assert_eq!(parse_subspace(" 7-4"), Ok((7, 4)));
        for bad in ["2-5", "3-10", "x", "3", "4-"] {
            let e = parse_subspace(bad).expect_err(bad);
            assert!(e.contains("is not W-B"), "{e}");
        }
        assert_eq!(parse_layer("17"), Ok(17));
        assert_eq!(parse_layer("18"), Err("placing layers are 0 to 17".into()));
    }
}

//! `rookery tb probe`: what the endgame tables say of a position and of each of its moves.

use clap::{Args, Subcommand};

use crate::core::game::{parse_fen, san, uci};
use crate::error::Error;
use crate::tb::Syzygy;

#[derive(Subcommand, Debug)]
pub enum TbCommand {
    /// Print WDL and DTZ (Syzygy; python-chess's conventions: WDL -2..2 as after a capture or
    /// pawn move, DTZ signed, both from the side to move), DTM (Gaviota: signed plies to mate),
    /// and every legal move's result, best first
    Probe(ProbeArgs),
}

#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// The position
    #[arg(long)]
    pub fen: String,
    /// Syzygy table directories, separated by ':'
    #[arg(long, value_name = "DIRS", required_unless_present = "gaviota")]
    pub syzygy: Option<String>,
    /// Gaviota table directory (distance to mate)
    #[arg(long, value_name = "DIR", hide = !cfg!(feature = "gaviota"))]
    pub gaviota: Option<String>,
}

/// Words for a WDL value from the mover's side.
pub fn wdl_name(wdl: i32) -> &'static str {
    match wdl {
        2 => "win",
        1 => "cursed win",
        0 => "draw",
        -1 => "blessed loss",
        _ => "loss",
    }
}

pub fn run(command: TbCommand) -> Result<i32, Error> {
    let TbCommand::Probe(args) = command;
    let pos = parse_fen(&args.fen)?;
    let dtm_tables = args
        .gaviota
        .as_deref()
        .map(crate::tb::open_gaviota)
        .transpose()?;
    let syzygy = args.syzygy.as_deref().map(Syzygy::open).transpose()?;
    let pieces = shakmaty::Position::board(&pos).occupied().count();
    let uncovered = || {
        Error::Invalid(format!(
            "the tables do not cover this position ({pieces} pieces{})",
            if shakmaty::Position::castles(&pos).is_empty() {
                ""
            } else {
                ", castling rights"
            }
        ))
    };
    // Distance to mate of each move, when Gaviota tables are given.
    let dtm_moves = match &dtm_tables {
        Some(t) => {
            let dtm = t.probe_dtm(&pos).ok_or_else(uncovered)?;
            println!("DTM: {dtm}");
            Some(crate::tb::dtm::rank_moves(t.as_ref(), &pos).ok_or_else(uncovered)?)
        }
        None => None,
    };
    let dtm_of = |m: shakmaty::Move| -> String {
        dtm_moves
            .as_ref()
            .and_then(|v| v.iter().find(|s| s.0 == m))
            .map(|s| format!("  {}", crate::core::score::format_score(s.1)))
            .unwrap_or_default()
    };
    let Some(tb) = syzygy else {
        for &(m, score) in dtm_moves.iter().flatten() {
            println!(
                "{:<8} {:<6} {}",
                san(&pos, m),
                uci(m),
                crate::core::score::format_score(score)
            );
        }
        return Ok(0);
    };
    if !tb.covers(&pos, 7) {
        return Err(uncovered());
    }
    let not_found = || {
        let why = tb.take_messages().join("; ");
        Error::Invalid(format!(
            "the tables cannot answer for this position{}",
            if why.is_empty() {
                String::new()
            } else {
                format!(": {why}")
            }
        ))
    };
    let wdl = tb.probe_wdl_after_zeroing(&pos).ok_or_else(not_found)?;
    let dtz = tb.probe_dtz(&pos).ok_or_else(not_found)?;
    println!("WDL: {}", wdl as i32);
    println!("DTZ: {dtz}");
    let moves = tb.rank_moves(&pos).ok_or_else(not_found)?;
    for r in moves {
        println!(
            "{:<8} {:<6} {:<12} DTZ {}{}",
            san(&pos, r.mv),
            uci(r.mv),
            wdl_name(r.wdl),
            r.dtz,
            dtm_of(r.mv)
        );
    }
    Ok(0)
}

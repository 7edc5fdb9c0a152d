//! `rookery tb probe`: what the endgame tables say of a position and of each of its moves.

use clap::{Args, Subcommand};

use crate::core::game::{parse_fen, san, uci};
use crate::error::Error;
use crate::tb::Syzygy;

#[derive(Subcommand, Debug)]
pub enum TbCommand {
    /// Print WDL and DTZ (Syzygy; python-chess's conventions: WDL -2..2 as after a capture or
    /// pawn move, DTZ signed, both from the side to move) and every legal move's result, best first
    Probe(ProbeArgs),
}

#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// The position
    #[arg(long)]
    pub fen: String,
    /// Syzygy table directories, separated by ':'
    #[arg(long, value_name = "DIRS")]
    pub syzygy: String,
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
    let tb = Syzygy::open(&args.syzygy)?;
    let pieces = shakmaty::Position::board(&pos).occupied().count();
    if !tb.covers(&pos, 7) {
        return Err(Error::Invalid(format!(
            "the tables cover positions of up to {} pieces without castling rights; this one has {pieces}{}",
            tb.max_pieces(),
            if shakmaty::Position::castles(&pos).is_empty() {
                ""
            } else {
                " and castling rights"
            }
        )));
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
            "{:<8} {:<6} {:<12} DTZ {}",
            san(&pos, r.mv),
            uci(r.mv),
            wdl_name(r.wdl),
            r.dtz
        );
    }
    Ok(0)
}

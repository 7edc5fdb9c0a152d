//! The trainer's checkpoint files: the float net, the optimiser's moments, the epoch and the loss
//! history, sealed with a checksum; files of the earlier formats still read.

use super::network::FloatNet;
use super::trainer::Trainer;
use crate::core::bytes::{self, Put, Reader};
use crate::error::{Error, LayoutProblem, TrainProblem};
use crate::nnue::{self, Activation, InputLayout};

/// Checkpoints with the input layout, the factoriser flag, the deep head's sizes and whether it
/// reads pairs' products; `RKC5` (not paired), `RKC4` (no deep head), `RKC3` (the layout, no factoriser), `RKC2` (the output bucket count, the plain
/// layout) and `RKCK` (one output layer) files still read.
const CHECKPOINT_MAGIC: &[u8; 4] = b"RKC6";
const CHECKPOINT_MAGIC_5: &[u8; 4] = b"RKC5";
const CHECKPOINT_MAGIC_4: &[u8; 4] = b"RKC4";
const CHECKPOINT_MAGIC_3: &[u8; 4] = b"RKC3";
const CHECKPOINT_MAGIC_2: &[u8; 4] = b"RKC2";
const CHECKPOINT_MAGIC_1: &[u8; 4] = b"RKCK";
impl Trainer {
    /// The trainer as a checkpoint file: the float net, the optimiser's moments, the epoch and
    /// the loss history, then the checksum of all before it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(CHECKPOINT_MAGIC);
        out.put(self.net.hidden as u32);
        out.put(self.net.activation.code());
        out.put(self.net.buckets as u32);
        out.put(u8::from(self.net.layout.mirror()));
        out.extend_from_slice(self.net.layout.king_buckets());
        out.put(u8::from(self.net.factorised));
        let (l1, l2) = self.net.head.unwrap_or((0, 0));
        out.put(l1 as u32);
        out.put(l2 as u32);
        out.put(u8::from(self.net.paired));
        out.put(self.step);
        out.put(self.epoch as u32);
        out.put(self.history.len() as u32);
        for &(a, b) in &self.history {
            out.put(a);
            out.put(b);
        }
        for &x in self.net.params.iter().chain(&self.m).chain(&self.v) {
            out.put(x);
        }
        bytes::seal(&mut out);
        out
    }

    /// A checkpoint read back, checked: its magic, its checksum, and a net shape that can be.
    pub fn from_bytes(bytes: &[u8]) -> Result<Trainer, Error> {
        let refuse = |problem| Error::Train {
            path: String::new(),
            problem,
        };
        let magics = [
            CHECKPOINT_MAGIC_1,
            CHECKPOINT_MAGIC_2,
            CHECKPOINT_MAGIC_3,
            CHECKPOINT_MAGIC_4,
            CHECKPOINT_MAGIC_5,
            CHECKPOINT_MAGIC,
        ];
        let Some(version) = magics
            .iter()
            .position(|m| bytes.len() >= 12 && &bytes[..4] == *m)
        else {
            return Err(refuse(TrainProblem::NotACheckpoint));
        };
        let bucketed = version >= 1;
        let laid_out = version >= 2;
        let flagged = version >= 3;
        let headed = version >= 4;
        let pairable = version >= 5;
        let body = bytes::unseal(bytes).ok_or_else(|| refuse(TrainProblem::Damaged))?;
        let mut r = Reader::new(body);
        let mut fields = || -> Result<Trainer, TrainProblem> {
            let short = TrainProblem::CutShort;
            r.take(4, "the magic").map_err(short)?;
            let hidden = r.read::<u32>("the hidden size").map_err(short)? as usize;
            let code: u8 = r.read("the activation").map_err(short)?;
            let activation = Activation::from_code(code).ok_or(TrainProblem::Activation(code))?;
            if hidden == 0 || hidden > nnue::MAX_HIDDEN {
                return Err(TrainProblem::Hidden {
                    hidden,
                    max: nnue::MAX_HIDDEN,
                });
            }
            let buckets = if bucketed {
                r.read::<u32>("the output buckets").map_err(short)? as usize
            } else {
                1
            };
            if !nnue::valid_buckets(buckets) {
                return Err(TrainProblem::Buckets(buckets));
            }
            let layout = if laid_out {
                let mirror = match r.read::<u8>("the mirror flag").map_err(short)? {
                    0 => false,
                    1 => true,
                    m => return Err(TrainProblem::Layout(LayoutProblem::MirrorFlag(m))),
                };
                let table = r.take(64, "the king buckets").map_err(short)?;
                let table: [u8; 64] = table.try_into().expect("64 bytes");
                InputLayout::new(mirror, table).map_err(TrainProblem::Layout)?
            } else {
                InputLayout::PLAIN
            };
            let factorised = flagged
                && match r.read::<u8>("the factoriser flag").map_err(short)? {
                    0 => false,
                    1 => true,
                    f => return Err(TrainProblem::Factoriser(f)),
                };
            let head = if headed {
                let l1 = r.read::<u32>("the first deep layer").map_err(short)? as usize;
                let l2 = r.read::<u32>("the second deep layer").map_err(short)? as usize;
                match (l1, l2) {
                    (0, 0) => None,
                    _ => {
                        nnue::deep::check_shape(hidden, l1, l2).map_err(|_| {
                            TrainProblem::Head {
                                hidden,
                                l1,
                                l2,
                                max_l2: nnue::deep::MAX_L2,
                            }
                        })?;
                        Some((l1, l2))
                    }
                }
            } else {
                None
            };
            let paired = pairable
                && match r.read::<u8>("the paired flag").map_err(short)? {
                    0 => false,
                    1 if head.is_some() => true,
                    f => return Err(TrainProblem::Paired(f)),
                };
            let step = r.read("the step").map_err(short)?;
            let epoch = r.read::<u32>("the epoch").map_err(short)? as usize;
            let hist = r.read::<u32>("the history's length").map_err(short)? as usize;
            let losses = r
                .read_n::<f32>(2 * hist.min(1 << 20), "the loss history")
                .map_err(short)?;
            let history = losses.chunks_exact(2).map(|p| (p[0], p[1])).collect();
            let n = FloatNet::len(&layout, hidden, buckets, factorised, head, paired);
            let params = r.read_n(n, "the weights").map_err(short)?;
            let m = r.read_n(n, "the first moments").map_err(short)?;
            let v = r.read_n(n, "the second moments").map_err(short)?;
            Ok(Trainer {
                net: FloatNet {
                    hidden,
                    activation,
                    buckets,
                    layout,
                    factorised,
                    head,
                    paired,
                    params,
                },
                m,
                v,
                step,
                epoch,
                history,
            })
        };
        fields().map_err(refuse)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ReadError;

    /// A checkpoint of `t` with `edit` made to its body, sealed again with a checksum that
    /// matches: what the checks after the checksum must catch.
    fn resealed(t: &Trainer, edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut b = t.to_bytes();
        b.truncate(b.len() - 8);
        edit(&mut b);
        bytes::seal(&mut b);
        b
    }

    #[test]
    fn a_checkpoint_with_an_unknown_activation_or_cut_short_is_refused_by_name() {
        let t = Trainer::new(FloatNet::new(
            4,
            Activation::CReLU,
            2,
            InputLayout::PLAIN,
            1,
        ));
        assert_eq!(Trainer::from_bytes(&t.to_bytes()).unwrap(), t);
        // One before the deep head (`RKC4`, no sizes after the factoriser flag, at byte 79)
        // reads without one.
        let old = resealed(&t, |b| {
            b.drain(79..88);
            b[..4].copy_from_slice(b"RKC4");
        });
        assert_eq!(Trainer::from_bytes(&old).unwrap(), t);
        let deep = Trainer::new(FloatNet::new_with_head(
            8,
            Activation::SCReLU,
            2,
            InputLayout::PLAIN,
            Some((8, 4)),
            1,
        ));
        assert_eq!(Trainer::from_bytes(&deep.to_bytes()).unwrap(), deep);
        let e = Trainer::from_bytes(&resealed(&deep, |b| b[79] = 12)).unwrap_err();
        assert!(e.to_string().contains("deep layers of 12 and 4"), "{e}");
        // One before paired heads (`RKC5`, no flag after the deep layers, at byte 87) reads
        // as not paired.
        let old = resealed(&deep, |b| {
            b.remove(87);
            b[..4].copy_from_slice(b"RKC5");
        });
        assert_eq!(Trainer::from_bytes(&old).unwrap(), deep);
        let paired = Trainer::new(FloatNet::new_paired(
            8,
            Activation::SCReLU,
            2,
            InputLayout::PLAIN,
            (8, 4),
            1,
        ));
        assert_eq!(Trainer::from_bytes(&paired.to_bytes()).unwrap(), paired);
        assert_eq!(paired.to_bytes()[87], 1);
        let e = Trainer::from_bytes(&resealed(&paired, |b| b[87] = 2)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a paired flag of 2 (0, or 1 with a deep head)"
        );
        // Paired without a deep head.
        let e = Trainer::from_bytes(&resealed(&t, |b| b[87] = 1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a paired flag of 1 (0, or 1 with a deep head)"
        );
        // The flag at 0 reads the weights as a head of `2N` inputs: they fall short.
        let e = Trainer::from_bytes(&resealed(&paired, |b| b[87] = 0)).unwrap_err();
        assert!(e.to_string().contains("cut short"), "{e}");
        // A checkpoint of the format before layouts (`RKC2`, no layout after the output
        // buckets, at byte 13) reads with the plain layout.
        let old = resealed(&t, |b| {
            b.drain(79..88);
            b.drain(13..13 + 66);
            b[..4].copy_from_slice(b"RKC2");
        });
        assert_eq!(Trainer::from_bytes(&old).unwrap(), t);
        // One before the factoriser (`RKC3`, no flag after the layout, at byte 78) reads as
        // not factorised.
        let old = resealed(&t, |b| {
            b.drain(79..88);
            b.remove(13 + 65);
            b[..4].copy_from_slice(b"RKC3");
        });
        assert_eq!(Trainer::from_bytes(&old).unwrap(), t);
        let e = Trainer::from_bytes(&resealed(&t, |b| b[13 + 65] = 2)).unwrap_err();
        assert_eq!(e.to_string(), "a factoriser flag of 2 (0 or 1)");
        // A layout no net can have.
        let e = Trainer::from_bytes(&resealed(&t, |b| b[13] = 9)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unsupported input layout: mirror flag 9 (0 or 1)"
        );
        let e = Trainer::from_bytes(&resealed(&t, |b| b[14 + 60] = 17)).unwrap_err();
        assert!(e.to_string().contains("king bucket 17 on e8"), "{e}");
        let e = Trainer::from_bytes(&resealed(&t, |b| b[14 + 60] = 1)).unwrap_err();
        assert!(e.to_string().contains("cut short"), "{e}");
        // Byte 8, after the magic and the hidden size, is the activation's code.
        let e = Trainer::from_bytes(&resealed(&t, |b| b[8] = 7)).unwrap_err();
        assert_eq!(
            e,
            Error::Train {
                path: String::new(),
                problem: TrainProblem::Activation(7)
            }
        );
        assert_eq!(
            e.in_file("x.ckpt").to_string(),
            "x.ckpt: unknown activation code 7"
        );
        let e = Trainer::from_bytes(&resealed(&t, |b| b.truncate(b.len() - 4))).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Train {
                    problem: TrainProblem::CutShort(ReadError::Short {
                        what: "the second moments",
                        ..
                    }),
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(
            e.to_string().starts_with("the checkpoint is cut short"),
            "{e}"
        );
        let e = Trainer::from_bytes(&resealed(&t, |b| b[9] = 3)).unwrap_err();
        assert!(e.to_string().contains("output buckets"), "{e}");
        let e = Trainer::from_bytes(b"RKNN and some more bytes").unwrap_err();
        assert_eq!(e.to_string(), "not a Rookery training checkpoint");
    }
}

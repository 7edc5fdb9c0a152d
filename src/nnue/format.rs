//! The net file format: a header (magic, version, architecture), where the net came from (data,
//! command, commit), the weights (little-endian) and a checksum of all before it.
//!
//! Reading checks everything, so a file that is not a net, of another version or architecture,
//! cut short or damaged is an error that names which. Version 5 adds the deep head that reads
//! pairs' products (`nnue::Input::Paired`); version 4 added the deep head (`deep.rs`: two small
//! layers after the feature transformer, in place of the output layer), version 3 the input
//! layout (a mirror flag and the 64-entry king bucket table), version 2 the number of output
//! buckets. A net is written in the oldest version that holds it (3 without a deep head, 4 with
//! one, 5 with a paired one), and files of every version still read, versions 1 and 2 with the
//! plain layout. The built-in net is read from the same bytes, once, on first use.
//!
//! | bytes | field |
//! |---|---|
//! | 4 | `RKNN` |
//! | 4 | version (3; 4 with a deep head; 5 with a paired one) |
//! | 4 | inputs a king bucket (768) |
//! | 4 | hidden neurons `N` (1 to 1,024) |
//! | 1 | activation (0 CReLU, 1 SCReLU) |
//! | 4 | output buckets `B` (1, 2, 4, 8; from version 2) |
//! | 1 | mirror flag (0 or 1; from version 3) |
//! | 64 | king bucket of each square a1..h8, seen from the perspective's side (from version 3) |
//! | 4, 4, 2 | the deep layers `L1`, `L2` and the first one's weight scale `QL1` (version 4) |
//! | 1 | the first deep layer's inputs: 0 each neuron activated, 1 pairs' products (version 5) |
//! | 2, 2, 4 | QA, QB, scale |
//! | 4 + n | provenance: its length, then UTF-8 text |
//! | 2 each | feature weights (`768 * K` rows of `N`), feature biases (`N`) |
//! | 2 each | without a deep head: output weights (`2N` a bucket) |
//! | 4 each | without a deep head: output biases (one a bucket) |
//! | 1, 4 each | with a deep head, for each bucket: the first layer's 8-bit weights (`2N * L1`, or `N * L1` paired, `deep::w1_index`'s order), then 32-bit floats: its biases (`L1`), the second layer's weights (`L1 * L2`) and biases (`L2`), the output weights (`L2`) and bias (1) |
//! | 8 | checksum (FNV-1a) of all before it |

use std::sync::Arc;

use super::deep::{self, Deep};
use super::{
    Activation, INPUTS, InputLayout, Layer, MAX_HIDDEN, Network, QA, QB, SCALE, valid_buckets,
};
use crate::core::bytes::{Put, Reader, seal, unseal};
use crate::error::{Error, LayoutProblem, NetProblem};

pub use crate::core::bytes::checksum;

/// The largest net file read: the widest net the format allows (1,024 neurons, 16 king buckets,
/// 8 output buckets) takes about 25 MB, so a file above this is not a net and is refused before
/// it is read.
pub const MAX_NET_FILE: u64 = 64 << 20;
const MAGIC: &[u8; 4] = b"RKNN";
/// Version 5 adds the paired deep head, version 4 the deep head, version 3 the input layout,
/// version 2 the number of output buckets; every older version still reads.
const VERSION: u32 = 5;
/// The version a net with a deep head of activated inputs is written in.
const VERSION_DEEP: u32 = 4;
/// The version a net without a deep head is written in.
const VERSION_SHALLOW: u32 = 3;

const _: () = assert!(
    (2 * INPUTS * super::MAX_KING_BUCKETS * MAX_HIDDEN + 8 * 4 * MAX_HIDDEN + (1 << 16)) as u64
        <= MAX_NET_FILE
);

/// The net built into the binary (`nets/default.nnue`).
static DEFAULT_NET: &[u8] = include_bytes!("../../nets/default.nnue");

impl Activation {
    /// The activation's byte in a net file's header (and a training checkpoint's).
    pub fn code(self) -> u8 {
        match self {
            Activation::CReLU => 0,
            Activation::SCReLU => 1,
        }
    }

    /// The activation a header's byte names; `None` for a code that names none.
    pub fn from_code(code: u8) -> Option<Activation> {
        match code {
            0 => Some(Activation::CReLU),
            1 => Some(Activation::SCReLU),
            _ => None,
        }
    }
}

impl Network {
    /// The net built into the binary.
    pub fn default_net() -> Arc<Network> {
        static NET: std::sync::OnceLock<Arc<Network>> = std::sync::OnceLock::new();
        NET.get_or_init(|| {
            Arc::new(
                Network::from_bytes(DEFAULT_NET).expect("the built-in net is checked by a test"),
            )
        })
        .clone()
    }

    /// A net of input layout `layout`, `hidden` neurons and `buckets` output layers whose
    /// 16-bit weights come from `weight`, called once a weight in file order with the layer it
    /// fills.
    pub(crate) fn from_weights(
        activation: Activation,
        layout: InputLayout,
        hidden: usize,
        buckets: usize,
        mut weight: impl FnMut(Layer) -> i16,
        out_bias: Vec<i32>,
        provenance: String,
    ) -> Result<Network, NetProblem> {
        let inputs = layout.inputs();
        let mut layer = |l: Layer| -> Vec<i16> {
            (0..l.len(inputs, hidden, buckets))
                .map(|_| weight(l))
                .collect()
        };
        let ft_weights = layer(Layer::FtWeights);
        let ft_bias = layer(Layer::FtBias);
        let out_weights = layer(Layer::OutWeights);
        Network::from_parts(
            activation,
            layout,
            ft_weights,
            ft_bias,
            out_weights,
            out_bias,
            provenance,
        )
    }

    /// The net as a file: header, provenance, weights (little-endian), checksum of all before it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + 2 * self.ft_weights.len());
        out.extend_from_slice(MAGIC);
        out.put(match &self.deep {
            Some(d) if d.paired => VERSION,
            Some(_) => VERSION_DEEP,
            None => VERSION_SHALLOW,
        });
        out.put(INPUTS as u32);
        out.put(self.hidden as u32);
        out.put(self.activation.code());
        out.put(self.buckets as u32);
        out.put(u8::from(self.layout.mirror()));
        out.extend_from_slice(self.layout.king_buckets());
        if let Some(d) = &self.deep {
            out.put(d.l1 as u32);
            out.put(d.l2 as u32);
            out.put(d.ql1 as u16);
            if d.paired {
                out.put(1u8);
            }
        }
        out.put(QA as u16);
        out.put(QB as u16);
        out.put(SCALE as u32);
        let prov = self.provenance.as_bytes();
        out.put(prov.len() as u32);
        out.extend_from_slice(prov);
        for &w in self
            .ft_weights
            .iter()
            .chain(self.ft_bias.iter())
            .chain(self.out_weights.iter())
        {
            out.put(w);
        }
        for &b in self.out_bias.iter() {
            out.put(b);
        }
        if let Some(d) = &self.deep {
            let [_, nb1, n2, nb2, n3, nb3] = Deep::sizes_for(d.inputs(), d.l1, d.l2);
            for b in 0..d.buckets {
                for w in d.w1_in_file_order(b) {
                    out.put(w);
                }
                for (v, n) in [
                    (&d.b1, nb1),
                    (&d.w2, n2),
                    (&d.b2, nb2),
                    (&d.w3, n3),
                    (&d.b3, nb3),
                ] {
                    for &x in &v[n * b..n * (b + 1)] {
                        out.put(x);
                    }
                }
            }
        }
        seal(&mut out);
        out
    }

    /// Reads a net file, checking everything: a file that is not a net, of another version or
    /// architecture, cut short or damaged is an error that says which.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetProblem> {
        if bytes.len() < 4 || &bytes[..4] != MAGIC {
            return Err(NetProblem::NotANet);
        }
        let short = |_| NetProblem::CutShort;
        let mut r = Reader::new(bytes);
        r.take(4, "the magic").map_err(short)?;
        let version: u32 = r.read("the version").map_err(short)?;
        if !(1..=VERSION).contains(&version) {
            return Err(NetProblem::Version {
                found: version,
                newest: VERSION,
            });
        }
        let inputs = r.read::<u32>("the inputs").map_err(short)? as usize;
        let hidden = r.read::<u32>("the hidden size").map_err(short)? as usize;
        let activation: u8 = r.read("the activation").map_err(short)?;
        let buckets = if version >= 2 {
            r.read::<u32>("the buckets").map_err(short)? as usize
        } else {
            1
        };
        let layout = if version >= 3 {
            let mirror: u8 = r.read("the mirror flag").map_err(short)?;
            let table = r.take(64, "the king buckets").map_err(short)?;
            let mirror = match mirror {
                0 => false,
                1 => true,
                m => return Err(NetProblem::Layout(LayoutProblem::MirrorFlag(m))),
            };
            let table: [u8; 64] = table.try_into().expect("64 bytes");
            InputLayout::new(mirror, table).map_err(NetProblem::Layout)?
        } else {
            InputLayout::PLAIN
        };
        let head = if version >= 4 {
            let l1 = r.read::<u32>("the first deep layer").map_err(short)? as usize;
            let l2 = r.read::<u32>("the second deep layer").map_err(short)? as usize;
            let ql1: u16 = r.read("QL1").map_err(short)?;
            let paired = if version >= 5 {
                match r
                    .read::<u8>("the first deep layer's inputs")
                    .map_err(short)?
                {
                    0 => false,
                    1 => true,
                    x => {
                        return Err(NetProblem::Weights(format!(
                            "the first deep layer's inputs {x} (0 activations, 1 pairs' products)"
                        )));
                    }
                }
            } else {
                false
            };
            deep::check_shape(hidden, l1, l2)?;
            Some((l1, l2, i32::from(ql1), paired))
        } else {
            None
        };
        let qa: u16 = r.read("QA").map_err(short)?;
        let qb: u16 = r.read("QB").map_err(short)?;
        let scale: u32 = r.read("the scale").map_err(short)?;
        if inputs != INPUTS
            || hidden == 0
            || hidden > MAX_HIDDEN
            || !valid_buckets(buckets)
            || i32::from(qa) != QA
            || i32::from(qb) != QB
            || scale as i32 != SCALE
        {
            return Err(NetProblem::Architecture {
                found: format!(
                    "{inputs} inputs, {hidden} hidden, {buckets} output buckets, QA {qa}, QB {qb}, scale {scale}"
                ),
                supported: format!(
                    "{INPUTS} inputs, 1 to {MAX_HIDDEN} hidden, 1, 2, 4 or 8 buckets, QA {QA}, QB {QB}, scale {SCALE}"
                ),
            });
        }
        let activation =
            Activation::from_code(activation).ok_or(NetProblem::Activation(activation))?;
        let prov_len = r.read::<u32>("the provenance's length").map_err(short)? as usize;
        let header = r.position();
        let (weights, tail) = match head {
            None => (
                layout.inputs() * hidden + hidden + 2 * hidden * buckets,
                4 * buckets,
            ),
            Some((l1, l2, _, paired)) => {
                let [n1, rest @ ..] = Deep::sizes_for(deep::inputs(hidden, paired), l1, l2);
                (
                    layout.inputs() * hidden + hidden,
                    buckets * (n1 + 4 * rest.iter().sum::<usize>()),
                )
            }
        };
        let expected = header + prov_len + 2 * weights + tail + 8;
        if prov_len > bytes.len() || bytes.len() < expected {
            return Err(NetProblem::CutShort);
        }
        if bytes.len() > expected {
            return Err(NetProblem::TrailingBytes);
        }
        let body = unseal(bytes).ok_or(NetProblem::Damaged)?;
        let mut r = Reader::new(body);
        r.take(header, "the header").map_err(short)?;
        let provenance =
            String::from_utf8_lossy(r.take(prov_len, "the provenance").map_err(short)?)
                .into_owned();
        let ft_and_out = r.read_n::<i16>(weights, "the weights").map_err(short)?;
        if let Some((l1, l2, ql1, paired)) = head {
            let [n1, nb1, n2, nb2, n3, nb3] = Deep::sizes_for(deep::inputs(hidden, paired), l1, l2);
            let mut w1 = Vec::with_capacity(n1 * buckets);
            let mut floats: [Vec<f32>; 5] = Default::default();
            for _ in 0..buckets {
                w1.extend(r.read_n::<i8>(n1, "the deep weights").map_err(short)?);
                for (v, n) in floats.iter_mut().zip([nb1, n2, nb2, n3, nb3]) {
                    v.extend(r.read_n::<f32>(n, "the deep weights").map_err(short)?);
                }
            }
            let [b1, w2, b2, w3, b3] = floats;
            let deep = Deep::with_inputs(hidden, paired, l1, l2, buckets, w1, b1, w2, b2, w3, b3)?
                .with_scale(ql1)?;
            let ft_bias = ft_and_out[layout.inputs() * hidden..].to_vec();
            let mut ft_weights = ft_and_out;
            ft_weights.truncate(layout.inputs() * hidden);
            return Network::from_deep_parts(
                activation, layout, ft_weights, ft_bias, deep, provenance,
            );
        }
        // The output biases close the body, after the 16-bit layers.
        let out_bias = r
            .read_n::<i32>(buckets, "the output biases")
            .map_err(short)?;
        let mut w = ft_and_out.into_iter();
        Network::from_weights(
            activation,
            layout,
            hidden,
            buckets,
            |_| w.next().unwrap_or_default(),
            out_bias,
            provenance,
        )
    }

    /// Reads a net file from disk.
    pub fn load(path: &str) -> Result<Network, Error> {
        let bytes = crate::core::memory::read_file(std::path::Path::new(path), MAX_NET_FILE)
            .map_err(|e| Error::io(path, e))?;
        Network::from_bytes(&bytes).map_err(|problem| Error::Net {
            path: path.to_string(),
            problem,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::MAX_OUT_WEIGHT;
    use crate::nnue::tests::{
        presets, random_bucketed_net, random_deep_net, random_layout_net, random_net,
    };
    use shakmaty::{Color, Position};

    /// The bytes of a file of an older `version` (1: one output layer, no bucket count; 2: no
    /// input layout) holding `net`, whose layout is plain.
    fn older_bytes(net: &Network, version: u32) -> Vec<u8> {
        assert!(net.layout().is_plain());
        let v3 = net.to_bytes();
        // magic, version, inputs, hidden, activation: 17 bytes; then the bucket count (4), the
        // mirror flag (1) and the king buckets (64).
        let kept = if version == 1 {
            assert_eq!(net.buckets(), 1);
            17
        } else {
            21
        };
        let mut old = v3[..kept].to_vec();
        old[4..8].copy_from_slice(&version.to_le_bytes());
        old.extend_from_slice(&v3[86..v3.len() - 8]);
        let sum = checksum(&old);
        old.extend_from_slice(&sum.to_le_bytes());
        old
    }

    /// `bytes` with `edit` made before the checksum, sealed again with a checksum that matches:
    /// what the checks of the header must catch by themselves.
    fn resealed(bytes: &[u8], edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut b = bytes[..bytes.len() - 8].to_vec();
        edit(&mut b);
        seal(&mut b);
        b
    }

    #[test]
    fn bucketed_nets_read_back_and_version_1_files_still_load() {
        for buckets in [1, 2, 4, 8] {
            let net = random_bucketed_net(16, Activation::SCReLU, buckets);
            assert_eq!(Network::from_bytes(&net.to_bytes()).unwrap(), net);
            assert_eq!(Network::from_bytes(&older_bytes(&net, 2)).unwrap(), net);
        }
        let net = random_net(16, Activation::CReLU);
        assert_eq!(Network::from_bytes(&older_bytes(&net, 1)).unwrap(), net);
        let mut odd = random_bucketed_net(16, Activation::SCReLU, 4).to_bytes();
        odd[17..21].copy_from_slice(&3u32.to_le_bytes());
        assert!(
            Network::from_bytes(&odd)
                .unwrap_err()
                .to_string()
                .contains("architecture")
        );
        assert!(
            Network::from_parts(
                Activation::SCReLU,
                InputLayout::PLAIN,
                vec![0; INPUTS * 4],
                vec![0; 4],
                vec![0; 8 * 3],
                vec![0; 3],
                String::new()
            )
            .unwrap_err()
            .to_string()
            .contains("buckets")
        );
        for w in [MAX_OUT_WEIGHT + 1, i16::MIN] {
            let mut out_weights = vec![0; 2 * 4];
            out_weights[3] = w;
            assert!(
                Network::from_parts(
                    Activation::SCReLU,
                    InputLayout::PLAIN,
                    vec![0; INPUTS * 4],
                    vec![0; 4],
                    out_weights,
                    vec![0],
                    String::new()
                )
                .unwrap_err()
                .to_string()
                .contains("output weight")
            );
        }
    }

    /// Every preset's net reads back whole, layout included, and says its layout; the built-in
    /// net's file (of the version before layouts) reads as plain and writes the same net back.
    #[test]
    fn every_layout_reads_back_and_the_architecture_names_it() {
        for layout in presets() {
            let net = random_layout_net(8, Activation::SCReLU, 2, layout);
            let bytes = net.to_bytes();
            assert_eq!(&bytes[4..8], &3u32.to_le_bytes());
            assert_eq!(bytes[21], u8::from(layout.mirror()));
            assert_eq!(&bytes[22..86], layout.king_buckets());
            let back = Network::from_bytes(&bytes).unwrap();
            assert_eq!(back, net);
            assert_eq!(*back.layout(), layout);
            let arch = back.architecture();
            if layout.is_plain() {
                assert_eq!(arch, "(768 -> 8) x 2 -> 1 x 2 buckets, SCReLU");
            } else {
                let name = layout.name().unwrap();
                let inputs = match layout.buckets() {
                    1 => "768".to_string(),
                    k => format!("768 x {k}"),
                };
                assert_eq!(
                    arch,
                    format!(
                        "({inputs} -> 8) x 2 -> 1 x 2 buckets, SCReLU, inputs {}",
                        layout.describe()
                    )
                );
                assert!(layout.describe().starts_with(&format!("{name}: mirrored")));
            }
        }
        // The built-in net is mirrored over four king buckets with a deep head on both whole
        // sides, so its file is of the version that records the head, and it reads back with
        // that layout and head.
        let default = Network::default_net();
        assert_eq!(
            *default.layout(),
            InputLayout::preset("mirror-kb4").unwrap()
        );
        assert_eq!(
            *Network::from_bytes(&default.to_bytes()).unwrap().layout(),
            InputLayout::preset("mirror-kb4").unwrap()
        );
        assert_eq!(Network::from_bytes(&default.to_bytes()).unwrap(), *default);
        assert!(default.deep().is_some_and(|d| !d.paired));
        assert_eq!(
            u32::from_le_bytes(DEFAULT_NET[4..8].try_into().unwrap()),
            VERSION_DEEP
        );
    }

    /// A layout no net can have, a file cut short in or after its layout, and one whose table
    /// was changed (so that it asks for other weights, or none at all) are each refused with
    /// their own message.
    #[test]
    fn a_bad_layout_in_a_net_file_is_named() {
        let net = random_layout_net(
            8,
            Activation::SCReLU,
            1,
            InputLayout::preset("mirror-kb4").unwrap(),
        );
        let bytes = net.to_bytes();
        let e = |b: &[u8]| Network::from_bytes(b).unwrap_err().to_string();
        assert_eq!(
            e(&resealed(&bytes, |b| b[21] = 2)),
            "unsupported input layout: mirror flag 2 (0 or 1)"
        );
        assert_eq!(
            e(&resealed(&bytes, |b| b[22 + 7] = 3)),
            "unsupported input layout: a mirrored layout with different king buckets on a1 and h1 \
             (files e-h must repeat a-d)"
        );
        assert!(
            e(&resealed(&bytes, |b| {
                b[22 + 56] = 40;
                b[22 + 63] = 40;
            }))
            .contains("king bucket 40 on a8"),
        );
        assert!(
            e(&resealed(&bytes, |b| b[22 + 63] = 2))
                .contains("different king buckets on a8 and h8")
        );
        // One more bucket asks for 768 more rows than the file holds.
        assert_eq!(
            e(&resealed(&bytes, |b| {
                b[22 + 56] = 4;
                b[22 + 63] = 4;
            })),
            "the net file is cut short"
        );
        // Unmirrored, the same table still reads (files e-h repeat a-d), and the checksum
        // catches the change.
        assert_eq!(
            e(&{
                let mut b = bytes.clone();
                b[21] = 0;
                b
            }),
            "the net file's checksum does not match (damaged)"
        );
        for cut in [10, 21, 22, 50, 86, 100, bytes.len() - 9] {
            assert_eq!(
                e(&bytes[..cut]),
                "the net file is cut short",
                "cut at {cut}"
            );
        }
        let err = Network::load("/no/such/net.nnue").unwrap_err().to_string();
        assert!(err.starts_with("/no/such/net.nnue"), "{err}");
    }

    /// A net with a deep head is written as version 4 (one without, as version 3, which older
    /// builds read; a paired one as version 5) and reads back whole in every layout; its sizes, scale and weights are
    /// checked as the other fields are.
    #[test]
    fn a_deep_head_reads_back_and_its_damage_is_named() {
        assert_eq!(
            &random_net(16, Activation::SCReLU).to_bytes()[4..8],
            &3u32.to_le_bytes()
        );
        for layout in presets() {
            for (buckets, head) in [(1, (8, 1)), (8, (16, 32)), (2, (32, 64))] {
                let net = random_deep_net(24, Activation::SCReLU, buckets, layout, head);
                let bytes = net.to_bytes();
                assert_eq!(&bytes[4..8], &4u32.to_le_bytes());
                let back = Network::from_bytes(&bytes).unwrap();
                assert_eq!(back, net);
                assert!(
                    back.architecture()
                        .contains(&format!("x 2 -> {} -> {} -> 1", head.0, head.1)),
                    "{}",
                    back.architecture()
                );
            }
        }
        let net = random_deep_net(16, Activation::CReLU, 2, InputLayout::PLAIN, (8, 4));
        let bytes = net.to_bytes();
        let e = |b: &[u8]| Network::from_bytes(b).unwrap_err().to_string();
        // After the layout (byte 86): L1, L2, QL1.
        assert!(e(&resealed(&bytes, |b| b[86] = 12)).contains("deep layers of 12 and 4"));
        assert!(e(&resealed(&bytes, |b| b[90] = 0)).contains("deep layers of 8 and 0"));
        assert!(e(&resealed(&bytes, |b| b[94] = 48)).contains("QL1 48"));
        assert!(e(&resealed(&bytes, |b| b[94] = 8)).contains("QL1 8"));
        // Another power of two is a scale the file may name: the same weights, read at it.
        let other = Network::from_bytes(&resealed(&bytes, |b| b[94] = 128)).unwrap();
        assert_eq!(other.deep().unwrap().ql1, 128);
        assert_eq!(Network::from_bytes(&other.to_bytes()).unwrap(), other);
        // The last float, the output bias of the second bucket, as not a number.
        let nan = resealed(&bytes, |b| {
            let at = b.len() - 4;
            b[at..].copy_from_slice(&f32::NAN.to_le_bytes());
        });
        assert!(e(&nan).contains("finite"), "{}", e(&nan));
        // An 8-bit weight of -128 (the first of the first bucket, after the 16-bit layers).
        let prov = net.provenance.len();
        let w1 = 96 + 2 + 2 + 4 + 4 + prov + 2 * (INPUTS * 16 + 16);
        assert!(e(&resealed(&bytes, |b| b[w1] = 0x80)).contains("-128"));
        for cut in [90, 95, w1, w1 + 100, bytes.len() - 9] {
            assert_eq!(
                e(&bytes[..cut]),
                "the net file is cut short",
                "cut at {cut}"
            );
        }
        // A deep head on a hidden layer that is not a multiple of 8.
        let mut odd = resealed(&bytes, |b| b[12..16].copy_from_slice(&12u32.to_le_bytes()));
        assert!(e(&odd).contains("multiple of 8"), "{}", e(&odd));
        odd.push(0);
        assert!(e(&odd).contains("multiple of 8") || e(&odd).contains("after its end"));
    }

    /// A deep head that reads pairs' products is written as version 5 (one that does not stays
    /// version 4) and reads back whole; its flag byte, after `QL1`, is checked.
    #[test]
    fn a_paired_head_reads_back_as_version_5() {
        for layout in presets() {
            let net = crate::nnue::tests::random_deep_net_within(
                32,
                Activation::SCReLU,
                2,
                layout,
                (8, 4),
                127,
                true,
            );
            let bytes = net.to_bytes();
            assert_eq!(&bytes[4..8], &5u32.to_le_bytes());
            let back = Network::from_bytes(&bytes).unwrap();
            assert_eq!(back, net);
            assert!(back.deep().unwrap().paired);
            assert!(
                back.architecture()
                    .contains("x 2 -> 32 paired -> 8 -> 4 -> 1"),
                "{}",
                back.architecture()
            );
        }
        let net = crate::nnue::tests::random_deep_net_within(
            16,
            Activation::CReLU,
            1,
            InputLayout::PLAIN,
            (8, 2),
            127,
            true,
        );
        let bytes = net.to_bytes();
        let e = |b: &[u8]| Network::from_bytes(b).unwrap_err().to_string();
        // After the layout (byte 86): L1, L2, QL1, then the flag.
        assert_eq!(bytes[96], 1);
        assert!(e(&resealed(&bytes, |b| b[96] = 2)).contains("inputs 2"));
        // The flag at 0 reads the weights as a head of `2N` inputs: there are too few.
        assert!(e(&resealed(&bytes, |b| b[96] = 0)).contains("cut short"));
        // Written as version 4, the flag byte is read as the start of QA.
        assert!(Network::from_bytes(&resealed(&bytes, |b| b[4] = 4)).is_err());
        for cut in [96, 97, bytes.len() - 9] {
            assert_eq!(
                e(&bytes[..cut]),
                "the net file is cut short",
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn a_net_file_reads_back_and_every_damage_is_named() {
        let net = random_net(16, Activation::SCReLU);
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
        let e = |b: &[u8]| Network::from_bytes(b).unwrap_err().to_string();
        assert!(e(&bytes[..bytes.len() - 3]).contains("cut short"));
        assert!(e(b"hello").contains("not a Rookery net"));
        let mut damaged = bytes.clone();
        damaged[200] ^= 1;
        assert!(e(&damaged).contains("checksum"));
        let mut other_version = bytes.clone();
        other_version[4] = 9;
        assert!(e(&other_version).contains("version 9"));
        let mut wide = bytes.clone();
        wide[12..16].copy_from_slice(&5000u32.to_le_bytes());
        assert!(e(&wide).contains("architecture"));
        let mut longer = bytes;
        longer.push(0);
        assert!(e(&longer).contains("after its end"));
    }

    #[test]
    fn the_built_in_net_loads() {
        let net = Network::default_net();
        assert!(net.hidden() >= 16);
        let start = shakmaty::Chess::default();
        let s = net.evaluate_board(start.board(), Color::White);
        assert!(s.abs() < 200, "the start position is about even: {s}");
    }
}

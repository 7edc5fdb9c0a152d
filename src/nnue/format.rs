//! The net file format: a header (magic, version, architecture), where the net came from (data,
//! command, commit), the weights (little-endian) and a checksum of all before it.
//!
//! Reading checks everything, so a file that is not a net, of another version or architecture,
//! cut short or damaged is an error that names which. Version 2 adds the number of output
//! buckets; version 1 files (one output layer) still read. The built-in net is read from the same
//! bytes, once, on first use.

use std::sync::Arc;

use super::{Activation, INPUTS, Layer, MAX_HIDDEN, Network, QA, QB, SCALE, valid_buckets};
use crate::core::bytes::{Put, Reader, seal, unseal};
use crate::error::{Error, NetProblem};

pub use crate::core::bytes::checksum;

/// The largest net file read: the widest net the format allows (1,024 neurons, 8 buckets) takes
/// about 1.6 MB, so a file above this is not a net and is refused before it is read.
pub const MAX_NET_FILE: u64 = 64 << 20;
const MAGIC: &[u8; 4] = b"RKNN";
/// Version 2 adds the number of output buckets; version 1 files (one output layer) still read.
const VERSION: u32 = 2;

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

    /// A net of `hidden` neurons and `buckets` output layers whose 16-bit weights come from
    /// `weight`, called once a weight in file order with the layer it fills.
    pub(crate) fn from_weights(
        activation: Activation,
        hidden: usize,
        buckets: usize,
        mut weight: impl FnMut(Layer) -> i16,
        out_bias: Vec<i32>,
        provenance: String,
    ) -> Result<Network, NetProblem> {
        let mut layer =
            |l: Layer| -> Vec<i16> { (0..l.len(hidden, buckets)).map(|_| weight(l)).collect() };
        let ft_weights = layer(Layer::FtWeights);
        let ft_bias = layer(Layer::FtBias);
        let out_weights = layer(Layer::OutWeights);
        Network::from_parts(
            activation,
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
        out.put(VERSION);
        out.put(INPUTS as u32);
        out.put(self.hidden as u32);
        out.put(self.activation.code());
        out.put(self.buckets as u32);
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
        if version != 1 && version != VERSION {
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
        let weights = INPUTS * hidden + hidden + 2 * hidden * buckets;
        let expected = header + prov_len + 2 * weights + 4 * buckets + 8;
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
        // The output biases close the body, after the 16-bit layers.
        let out_bias = r
            .read_n::<i32>(buckets, "the output biases")
            .map_err(short)?;
        let mut w = ft_and_out.into_iter();
        Network::from_weights(
            activation,
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
    use crate::nnue::tests::{random_bucketed_net, random_net};
    use shakmaty::{Color, Position};

    /// The bytes of a version 1 file (one output layer, no bucket count) holding `net`.
    fn version_1_bytes(net: &Network) -> Vec<u8> {
        assert_eq!(net.buckets(), 1);
        let v2 = net.to_bytes();
        // magic, version, inputs, hidden, activation: 17 bytes; then the bucket count.
        let mut v1 = v2[..17].to_vec();
        v1[4..8].copy_from_slice(&1u32.to_le_bytes());
        v1.extend_from_slice(&v2[21..v2.len() - 8]);
        let sum = checksum(&v1);
        v1.extend_from_slice(&sum.to_le_bytes());
        v1
    }

    #[test]
    fn bucketed_nets_read_back_and_version_1_files_still_load() {
        for buckets in [1, 2, 4, 8] {
            let net = random_bucketed_net(16, Activation::SCReLU, buckets);
            assert_eq!(Network::from_bytes(&net.to_bytes()).unwrap(), net);
        }
        let net = random_net(16, Activation::CReLU);
        assert_eq!(Network::from_bytes(&version_1_bytes(&net)).unwrap(), net);
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

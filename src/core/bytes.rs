//! Bytes of the crate's file formats: a little-endian [`Reader`] that names the field a file
//! ends inside ([`ReadError`]), the [`Put`] writer that mirrors it, LEB128 varints, and the
//! checksum (FNV-1a, 64 bits) a file ends with.
//!
//! Every format (data records, game logs, training checkpoints, nets) reads and writes its
//! numbers here, so a field is one call, a short file is the same typed error in all of them, and
//! a format's bytes are fixed by one definition of each encoding.

use crate::error::ReadError;

/// FNV-1a, 64 bits: the checksum of a checkpoint or net file, and the fingerprint of a net or
/// openings file in a data set's record of how its games were played.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Appends the checksum of everything in `out` to it, little-endian.
pub fn seal(out: &mut Vec<u8>) {
    let sum = checksum(out);
    out.put(sum);
}

/// The bytes before the checksum `seal` appended, or `None` where there is no room for one or it
/// does not match.
pub fn unseal(bytes: &[u8]) -> Option<&[u8]> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    (checksum(body) == u64::from_le_bytes(sum.try_into().ok()?)).then_some(body)
}

/// A number the formats store little-endian, in `SIZE` bytes.
pub trait Number: Copy {
    const SIZE: usize;
    /// The number in `bytes`, which are `SIZE` long.
    fn from_le(bytes: &[u8]) -> Self;
    fn put_le(self, out: &mut Vec<u8>);
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl Number for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn from_le(bytes: &[u8]) -> $t {
                <$t>::from_le_bytes(bytes.try_into().expect("a number's own size"))
            }
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}

numbers!(u8, i8, u16, u32, u64, i16, i32, f32);

/// Reads a format's fields in order from a byte slice. Positions count from the slice's start,
/// in a reader made by [`Reader::sub`] too, so an error names the byte of the whole file.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    /// The byte the next field starts at.
    pub fn position(&self) -> usize {
        self.at
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// The next `n` bytes, which hold `what`.
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ReadError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or(ReadError::Short {
                what,
                at: self.at,
                wanted: n,
                left: self.remaining(),
            })?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    /// A reader of the next `n` bytes (a part of the format with its own length, `what`); this
    /// reader goes on after them.
    pub fn sub(&mut self, n: usize, what: &'static str) -> Result<Reader<'a>, ReadError> {
        let at = self.at;
        self.take(n, what)?;
        Ok(Reader {
            bytes: &self.bytes[..self.at],
            at,
        })
    }

    /// The next number, which is `what`.
    pub fn read<T: Number>(&mut self, what: &'static str) -> Result<T, ReadError> {
        self.take(T::SIZE, what).map(T::from_le)
    }

    /// The next `n` numbers, which are `what`.
    pub fn read_n<T: Number>(&mut self, n: usize, what: &'static str) -> Result<Vec<T>, ReadError> {
        let bytes = n.checked_mul(T::SIZE).ok_or(ReadError::Short {
            what,
            at: self.at,
            wanted: usize::MAX,
            left: self.remaining(),
        })?;
        Ok(self
            .take(bytes, what)?
            .chunks_exact(T::SIZE)
            .map(T::from_le)
            .collect())
    }

    /// The next LEB128 varint (seven bits a byte, low first), which is `what`.
    pub fn varint(&mut self, what: &'static str) -> Result<u64, ReadError> {
        let at = self.at;
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b: u8 = self.read(what)?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(ReadError::Overlong { what, at })
    }
}

/// Writes a format's fields, little-endian, mirroring [`Reader`].
pub trait Put {
    fn put<T: Number>(&mut self, v: T);
    /// `v` as a LEB128 varint.
    fn put_varint(&mut self, v: u64);
}

impl Put for Vec<u8> {
    fn put<T: Number>(&mut self, v: T) {
        v.put_le(self);
    }

    fn put_varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.push(v as u8);
    }
}

/// A signed number as an unsigned one, small magnitudes small (for varints).
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// The signed number `zigzag` made `v` of.
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back_field_by_field() {
        let mut out = Vec::new();
        out.put(7u8);
        out.put(0xbeefu16);
        out.put(0xdead_beefu32);
        out.put(u64::MAX - 5);
        out.put(-300i16);
        out.put(i32::MIN);
        out.put(-1.5f32);
        for v in [0, 1, 127, 128, 300, u64::MAX] {
            out.put_varint(v);
        }
        for x in [0.25f32, -2.0, 1e9] {
            out.put(x);
        }
        for v in [0i16, i16::MIN, i16::MAX] {
            out.put(v);
        }
        // Little-endian: the low byte first.
        assert_eq!(out[1..3], [0xef, 0xbe]);
        let mut r = Reader::new(&out);
        assert_eq!(r.read::<u8>("a").unwrap(), 7);
        assert_eq!(r.read::<u16>("a").unwrap(), 0xbeef);
        assert_eq!(r.read::<u32>("a").unwrap(), 0xdead_beef);
        assert_eq!(r.read::<u64>("a").unwrap(), u64::MAX - 5);
        assert_eq!(r.read::<i16>("a").unwrap(), -300);
        assert_eq!(r.read::<i32>("a").unwrap(), i32::MIN);
        assert_eq!(r.read::<f32>("a").unwrap(), -1.5);
        for v in [0, 1, 127, 128, 300, u64::MAX] {
            assert_eq!(r.varint("a").unwrap(), v);
        }
        assert_eq!(r.read_n::<f32>(3, "a").unwrap(), [0.25, -2.0, 1e9]);
        assert_eq!(r.read_n::<i16>(3, "a").unwrap(), [0, i16::MIN, i16::MAX]);
        assert_eq!(r.remaining(), 0);
        assert_eq!(r.position(), out.len());
        for v in [0, 1, -1, 63, -64, i64::from(i32::MIN), i64::MAX, i64::MIN] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(-1), 1);
    }

    #[test]
    fn a_short_read_names_the_field_and_where_it_stopped() {
        let bytes = [1u8, 2, 3, 4, 5, 6];
        let mut r = Reader::new(&bytes);
        r.read::<u16>("the version").unwrap();
        let e = r.read::<u64>("the hidden size").unwrap_err();
        assert_eq!(
            e,
            ReadError::Short {
                what: "the hidden size",
                at: 2,
                wanted: 8,
                left: 4
            }
        );
        assert!(
            e.to_string().starts_with("cut short (the hidden size"),
            "{e}"
        );
        // A failed read takes nothing: the next field still reads.
        assert_eq!(r.read::<u32>("x").unwrap(), 0x0605_0403);
        assert!(matches!(
            r.read::<u8>("y"),
            Err(ReadError::Short { left: 0, .. })
        ));
        let mut r = Reader::new(&bytes);
        assert!(matches!(
            r.read_n::<f32>(2, "the weights"),
            Err(ReadError::Short {
                what: "the weights",
                wanted: 8,
                ..
            })
        ));
        assert!(r.read_n::<i32>(usize::MAX, "huge").is_err(), "no overflow");
        assert!(r.take(usize::MAX, "huge").is_err(), "no overflow");
        // A varint that ends inside its bytes, and one that runs past 64 bits.
        assert!(matches!(
            Reader::new(&[0x80, 0x80]).varint("n"),
            Err(ReadError::Short {
                what: "n",
                at: 2,
                ..
            })
        ));
        assert_eq!(
            Reader::new(&[0xff; 12]).varint("n"),
            Err(ReadError::Overlong { what: "n", at: 0 })
        );
    }

    #[test]
    fn a_part_read_apart_ends_where_its_length_says_and_counts_bytes_from_the_start() {
        let bytes = [9u8, 1, 2, 3, 4, 5];
        let mut outer = Reader::new(&bytes);
        outer.read::<u8>("len").unwrap();
        let mut part = outer.sub(3, "the part").unwrap();
        assert_eq!(outer.position(), 4);
        assert_eq!(part.read::<u16>("a").unwrap(), 0x0201);
        assert_eq!(
            part.read::<u16>("b"),
            Err(ReadError::Short {
                what: "b",
                at: 3,
                wanted: 2,
                left: 1
            })
        );
        assert!(outer.sub(3, "too long").is_err());
    }

    #[test]
    fn the_checksum_is_fnv1a_and_a_sealed_file_opens_only_unchanged() {
        // The FNV-1a 64 reference values: files written before keep their checksums.
        assert_eq!(checksum(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(checksum(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(checksum(b"foobar"), 0x8594_4171_f739_67e8);
        let mut file = b"some body".to_vec();
        seal(&mut file);
        assert_eq!(file.len(), 9 + 8);
        assert_eq!(unseal(&file), Some(&b"some body"[..]));
        let mut damaged = file.clone();
        damaged[3] ^= 1;
        assert_eq!(unseal(&damaged), None);
        assert_eq!(unseal(&file[..5]), None);
        assert_eq!(unseal(&[]), None);
    }
}

//! A data set on disk: a directory of chunk files (`chunk-000000.bin`, ...) of records and a
//! `manifest.json` that says, for each chunk, how many positions it holds, the seed and games it
//! came from, and for each run of the generator its command and commit. The manifest is written
//! (atomically: a temporary file, then a rename) after the data it counts, so after a crash or
//! Ctrl-C a chunk may hold more than the manifest counts, never less: the next run cuts the chunk
//! back to what is counted (a torn record included) and replays the games after it, which the
//! seed makes the same.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::filter::{Filter, Filtered};
use super::games::{GameLog, MAGIC};
use super::packed::{MAGIC_PACKED, read_any, write_packed};
use super::{RECORD_SIZE, Record, parse_records, records_to_bytes};
use crate::error::{DataProblem, Error};

pub const MANIFEST: &str = "manifest.json";
/// What the manifest's `format` field says.
pub const FORMAT: &str = "rookery-data 1: 32-byte records (bulletformat ChessBoard layout)";
/// Positions a chunk holds before the next one is started.
pub const CHUNK_POSITIONS: u64 = 1 << 20;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub runs: Vec<Run>,
    pub chunks: Vec<Chunk>,
}

/// One start of the generator.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub seed: u64,
    pub command: String,
    pub commit: String,
    /// Seconds since 1970 at the start.
    pub started: u64,
    /// The first game it played.
    pub first_game: u64,
    /// What decides the games besides the seed (evaluation and its net's checksum, nodes or
    /// depth, openings' checksum, random plies, hash size): a run that goes on with a seed's
    /// games must play them the same way. None in manifests written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    pub file: String,
    pub seed: u64,
    /// Positions counted (the file may hold more after a crash: they are cut on resume).
    pub positions: u64,
    pub first_game: u64,
    /// One past the last game whose positions are counted.
    pub next_game: u64,
    /// Bytes of the chunk's game log (`chunk-NNNNNN.games`, see `data::games`) counted, its magic
    /// included; none for a chunk written before the generator kept logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_bytes: Option<u64>,
}

impl Chunk {
    /// The name of the chunk's game log.
    pub fn log_file(&self) -> String {
        match self.file.strip_suffix(".bin") {
            Some(stem) => format!("{stem}.games"),
            None => format!("{}.games", self.file),
        }
    }
}

impl Manifest {
    pub fn total_positions(&self) -> u64 {
        self.chunks.iter().map(|c| c.positions).sum()
    }

    /// The next game of `seed`: one past the last counted.
    pub fn next_game(&self, seed: u64) -> u64 {
        self.chunks
            .iter()
            .filter(|c| c.seed == seed)
            .map(|c| c.next_game)
            .max()
            .unwrap_or(0)
    }
}

/// The manifest of the data directory `dir`, if it has one.
pub fn read_manifest(dir: &Path) -> Result<Option<Manifest>, Error> {
    let path = dir.join(MANIFEST);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| {
            Error::data(
                path.display(),
                DataProblem::Manifest {
                    reason: e.to_string(),
                },
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path.display(), e)),
    }
}

/// Cuts the file at `path` back to the `counted` bytes the manifest says it holds.
fn cut_to(path: &Path, counted: u64) -> Result<(), Error> {
    let len = std::fs::metadata(path)
        .map_err(|e| Error::io(path.display(), e))?
        .len();
    if len < counted {
        return Err(Error::data(
            path.display(),
            DataProblem::CutOutside { len, counted },
        ));
    }
    if len > counted {
        let f = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path.display(), e))?;
        f.set_len(counted)
            .map_err(|e| Error::io(path.display(), e))?;
    }
    Ok(())
}

fn write_manifest(dir: &Path, m: &Manifest) -> Result<(), Error> {
    let tmp = dir.join(format!("{MANIFEST}.tmp"));
    let text = serde_json::to_string_pretty(m).expect("a manifest serialises");
    std::fs::write(&tmp, text + "\n").map_err(|e| Error::io(tmp.display(), e))?;
    std::fs::rename(&tmp, dir.join(MANIFEST)).map_err(|e| Error::io(dir.display(), e))
}

/// Appends games to a data directory.
pub struct ChunkWriter {
    dir: PathBuf,
    manifest: Manifest,
    file: Option<File>,
    log: Option<File>,
    seed: u64,
    last_save: Instant,
}

impl ChunkWriter {
    /// Opens (or creates) `dir` for the games of `seed`, cutting the last chunk back to what the
    /// manifest counts. Returns the writer and the game to go on from. `games` says what decides
    /// the games besides the seed (see [`Run::games`]); going on with a seed's games under other
    /// settings is refused, since the set would no longer be what its seed and command rebuild.
    pub fn open(
        dir: &str,
        seed: u64,
        command: &str,
        commit: &str,
        games: &str,
    ) -> Result<(ChunkWriter, u64), Error> {
        let dir = PathBuf::from(dir);
        if dir.is_file() {
            return Err(Error::Invalid(format!(
                "{}: a file; binary data goes to a directory (or give a .epd file for EPD)",
                dir.display()
            )));
        }
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(dir.display(), e))?;
        let mut manifest = match read_manifest(&dir)? {
            Some(m) => m,
            None => {
                if std::fs::read_dir(&dir)
                    .map_err(|e| Error::io(dir.display(), e))?
                    .next()
                    .is_some()
                {
                    return Err(Error::Invalid(format!(
                        "{}: not empty and has no {MANIFEST}: give a new or empty directory",
                        dir.display()
                    )));
                }
                Manifest {
                    format: FORMAT.into(),
                    ..Manifest::default()
                }
            }
        };
        if let Some(last) = manifest.chunks.last() {
            cut_to(&dir.join(&last.file), last.positions * RECORD_SIZE as u64)?;
            if let Some(bytes) = last.log_bytes {
                cut_to(&dir.join(last.log_file()), bytes)?;
            }
        }
        let first = manifest.next_game(seed);
        let before = manifest
            .runs
            .iter()
            .rev()
            .filter(|r| r.seed == seed)
            .find_map(|r| r.games.as_deref());
        if let Some(before) = before
            && first > 0
            && before != games
        {
            return Err(Error::Invalid(format!(
                "{}: the games of seed {seed} so far were played with {before}; these would be \
                 played with {games}. Go on with the same settings, or give another seed or \
                 directory",
                dir.display()
            )));
        }
        manifest.runs.push(Run {
            seed,
            command: command.into(),
            commit: commit.into(),
            started: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            first_game: first,
            games: Some(games.into()),
        });
        write_manifest(&dir, &manifest)?;
        Ok((
            ChunkWriter {
                dir,
                manifest,
                file: None,
                log: None,
                seed,
                last_save: Instant::now(),
            },
            first,
        ))
    }

    /// Appends game `index`'s records and its log (one game's bytes, `data::games`).
    pub fn write_game(&mut self, index: u64, records: &[Record], log: &[u8]) -> Result<(), Error> {
        let needs_new = match self.manifest.chunks.last() {
            None => true,
            Some(c) => {
                c.seed != self.seed || c.positions >= CHUNK_POSITIONS || c.log_bytes.is_none()
            }
        };
        if needs_new {
            self.save()?;
            let name = format!("chunk-{:06}.bin", self.manifest.chunks.len());
            self.manifest.chunks.push(Chunk {
                file: name,
                seed: self.seed,
                positions: 0,
                first_game: index,
                next_game: index,
                log_bytes: Some(MAGIC.len() as u64),
            });
            self.file = None;
            self.log = None;
            let chunk = self.manifest.chunks.last().unwrap();
            let path = self.dir.join(chunk.log_file());
            std::fs::write(&path, MAGIC).map_err(|e| Error::io(path.display(), e))?;
        }
        let chunk = self.manifest.chunks.last_mut().unwrap();
        let open = |name: &str| {
            let path = self.dir.join(name);
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| Error::io(path.display(), e))
        };
        if self.file.is_none() {
            self.file = Some(open(&chunk.file)?);
        }
        if self.log.is_none() {
            self.log = Some(open(&chunk.log_file())?);
        }
        let bytes = records_to_bytes(records);
        let file = self.file.as_mut().unwrap();
        file.write_all(&bytes)
            .map_err(|e| Error::Invalid(format!("cannot write the data: {e}")))?;
        self.log
            .as_mut()
            .unwrap()
            .write_all(log)
            .map_err(|e| Error::Invalid(format!("cannot write the game log: {e}")))?;
        chunk.positions += records.len() as u64;
        chunk.log_bytes = chunk.log_bytes.map(|b| b + log.len() as u64);
        chunk.next_game = index + 1;
        if self.last_save.elapsed() >= Duration::from_secs(2) {
            self.save()?;
        }
        Ok(())
    }

    /// Flushes the data, then writes the manifest that counts it.
    pub fn save(&mut self) -> Result<(), Error> {
        for f in [self.file.as_mut(), self.log.as_mut()]
            .into_iter()
            .flatten()
        {
            f.sync_data()
                .map_err(|e| Error::Invalid(format!("cannot write the data: {e}")))?;
        }
        self.last_save = Instant::now();
        write_manifest(&self.dir, &self.manifest)
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }
}

impl Drop for ChunkWriter {
    fn drop(&mut self) {
        let _ = self.save();
    }
}

/// The counted records of one chunk of the data directory `dir`: from its record file, or, where
/// that is missing, from its game log.
fn chunk_records(dir: &Path, c: &Chunk) -> Result<Vec<Record>, Error> {
    let file = dir.join(&c.file);
    if !file.exists()
        && let Some(log_bytes) = c.log_bytes
    {
        return log_chunk_records(dir, c, log_bytes);
    }
    let bytes = std::fs::read(&file).map_err(|e| Error::io(file.display(), e))?;
    let counted = (c.positions as usize) * RECORD_SIZE;
    if bytes.len() < counted {
        return Err(Error::data(file.display(), DataProblem::ShorterThanCounted));
    }
    parse_records(&bytes[..counted]).map_err(|e| e.in_file(file.display()))
}

/// The records a chunk's game log gives back, checked against the manifest's counts.
fn log_chunk_records(dir: &Path, c: &Chunk, log_bytes: u64) -> Result<Vec<Record>, Error> {
    let games = log_chunk_games(dir, c, log_bytes)?;
    let mut out = Vec::with_capacity(c.positions as usize);
    for g in &games {
        out.extend(g.records());
    }
    Ok(out)
}

/// The games of a chunk's game log, checked against the manifest's counts.
fn log_chunk_games(dir: &Path, c: &Chunk, log_bytes: u64) -> Result<Vec<GameLog>, Error> {
    let file = dir.join(c.log_file());
    let bytes = std::fs::read(&file).map_err(|e| Error::io(file.display(), e))?;
    let counted = usize::try_from(log_bytes).unwrap_or(usize::MAX);
    if bytes.len() < counted {
        return Err(Error::data(file.display(), DataProblem::ShorterThanCounted));
    }
    let games = read_any(&bytes[..counted]).map_err(|e| e.in_file(file.display()))?;
    let positions: u64 = games.iter().map(|g| g.kept.len() as u64).sum();
    if positions != c.positions || games.len() as u64 != c.next_game - c.first_game {
        return Err(Error::data(
            file.display(),
            DataProblem::Counts {
                positions,
                games: games.len() as u64,
                counted_positions: c.positions,
                counted_games: c.next_game - c.first_game,
            },
        ));
    }
    Ok(games)
}

/// Hands `f` the records of each chunk of the data directory `path` in turn (each checked against
/// the manifest's counts, as `load` checks them), holding one chunk's records at a time.
pub fn for_each_chunk(path: &str, mut f: impl FnMut(Vec<Record>)) -> Result<(), Error> {
    let p = Path::new(path);
    for c in &data_manifest(p)?.chunks {
        f(chunk_records(p, c)?);
    }
    Ok(())
}

/// Every record of a data set: a directory with a manifest (the counted positions of each chunk,
/// from its record file or its game log) or a file of records.
pub fn load(path: &str) -> Result<Vec<Record>, Error> {
    let p = Path::new(path);
    if p.is_dir() {
        let m = data_manifest(p)?;
        let mut out = Vec::with_capacity(m.total_positions() as usize);
        for c in &m.chunks {
            out.extend(chunk_records(p, c)?);
        }
        Ok(out)
    } else {
        let bytes = std::fs::read(p).map_err(|e| Error::io(path, e))?;
        parse_records(&bytes).map_err(|e| e.in_file(path))
    }
}

/// The first `max` records of a data set (all of them when it holds fewer), reading a data
/// directory's chunks only as far as they are needed.
pub fn load_first(path: &str, max: usize) -> Result<Vec<Record>, Error> {
    let p = Path::new(path);
    let mut out = if p.is_dir() {
        let mut out = Vec::new();
        for c in &data_manifest(p)?.chunks {
            if out.len() >= max {
                break;
            }
            out.extend(chunk_records(p, c)?);
        }
        out
    } else {
        load(path)?
    };
    out.truncate(max);
    Ok(out)
}

/// The records of a data set that pass `filter`, with what was read and kept added to `counts`.
/// A filter that needs each position's ply reads the chunks' game logs, so `path` must then be a
/// data directory whose chunks all have one.
pub fn load_filtered(
    path: &str,
    filter: &Filter,
    counts: &mut Filtered,
) -> Result<Vec<Record>, Error> {
    if !filter.needs_plies() {
        let mut records = load(path)?;
        filter.retain(&mut records, counts);
        return Ok(records);
    }
    let p = Path::new(path);
    if !p.is_dir() {
        return Err(Error::Invalid(format!(
            "{path}: a file of bare records, which holds no plies; skipping plies needs a data directory with game logs (rookery datagen --out, rookery data unpack)"
        )));
    }
    let m = data_manifest(p)?;
    let mut out = Vec::with_capacity(m.total_positions() as usize);
    for c in &m.chunks {
        let Some(log_bytes) = c.log_bytes else {
            return Err(Error::Invalid(format!(
                "{path}: chunk {} has no game log, so its positions' plies are unknown; skipping plies needs game logs",
                c.file
            )));
        };
        for g in log_chunk_games(p, c, log_bytes)? {
            filter.game_records(&g, &mut out, counts);
        }
    }
    Ok(out)
}

/// What `pack` and `unpack` did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Packed {
    pub chunks: usize,
    pub positions: u64,
    pub games: u64,
    /// Chunks left out: written before the generator kept game logs.
    pub without_log: usize,
    /// Bytes of the game logs.
    pub log_bytes: u64,
}

fn data_manifest(dir: &Path) -> Result<Manifest, Error> {
    if !dir.is_dir() {
        return Err(Error::Invalid(format!(
            "{}: not a data directory",
            dir.display()
        )));
    }
    read_manifest(dir)?
        .ok_or_else(|| Error::Invalid(format!("{}: a directory without {MANIFEST}", dir.display())))
}

/// Creates `to` if needed and returns the manifest it holds, if any. Refuses the directory of
/// `from` itself and a directory holding files but no data set.
fn prepare_out(from: &Path, to: &Path) -> Result<Option<Manifest>, Error> {
    if to.is_file() {
        return Err(Error::Invalid(format!(
            "{}: a file, not a directory",
            to.display()
        )));
    }
    std::fs::create_dir_all(to).map_err(|e| Error::io(to.display(), e))?;
    let same = match (from.canonicalize(), to.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(Error::Invalid(format!(
            "{}: the data set itself; give another directory",
            to.display()
        )));
    }
    let existing = read_manifest(to)?;
    let nonempty = std::fs::read_dir(to)
        .map_err(|e| Error::io(to.display(), e))?
        .next()
        .is_some();
    if nonempty && existing.is_none() {
        return Err(Error::Invalid(format!(
            "{}: not empty and has no {MANIFEST}: give a new or empty directory",
            to.display()
        )));
    }
    Ok(existing)
}

/// Copies the game logs and the manifest of the data directory `from` into `to`, each log checked
/// by replaying it: a data set small enough to keep in a repository, which `unpack` (or any
/// reader of data sets) turns back into its records. Each chunk's log is written packed
/// (`data::packed`), except one the copy already holds as a plain log, which stays plain and
/// grows as before. Chunks without a log are left out of the copy's manifest; a copy made before
/// is brought up to date.
pub fn pack(from: &str, to: &str) -> Result<Packed, Error> {
    let (src, dst) = (Path::new(from), Path::new(to));
    let mut m = data_manifest(src)?;
    // A copy made before is brought up to date: each of its chunks must be one of this set's, of
    // the same seed and games, and may only grow.
    if let Some(old) = prepare_out(src, dst)? {
        for c in &old.chunks {
            let ours = m.chunks.iter().find(|x| x.file == c.file);
            if !ours.is_some_and(|x| {
                x.seed == c.seed && x.first_game == c.first_game && x.next_game >= c.next_game
            }) {
                return Err(Error::Invalid(format!(
                    "{}: holds another data set ({} is not {}'s); give a new or empty directory",
                    dst.display(),
                    c.file,
                    src.display()
                )));
            }
        }
    }
    let mut done = Packed::default();
    let mut kept = Vec::new();
    for mut c in m.chunks.drain(..) {
        let Some(log_bytes) = c.log_bytes else {
            done.without_log += 1;
            continue;
        };
        let games = log_chunk_games(src, &c, log_bytes)?;
        // A chunk the copy holds as a plain log stays one (only growing); others are packed.
        if log_magic(dst, &c) == Some(*MAGIC) || log_magic(src, &c) == Some(*MAGIC_PACKED) {
            copy_log(src, dst, &c, log_bytes, &mut done)?;
        } else {
            let bytes = write_packed(&games)?;
            c.log_bytes = Some(bytes.len() as u64);
            write_log(dst, &c, &bytes, &mut done)?;
        }
        kept.push(c);
    }
    m.chunks = kept;
    write_manifest(dst, &m)?;
    Ok(done)
}

/// The first eight bytes of the chunk `c`'s game log in `dir`, if it has one that long.
fn log_magic(dir: &Path, c: &Chunk) -> Option<[u8; 8]> {
    let mut head = [0u8; 8];
    std::fs::File::open(dir.join(c.log_file()))
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .ok()
        .map(|()| head)
}

/// Writes `bytes` as the chunk's game log in `dst`, and counts the chunk in `done`.
fn write_log(dst: &Path, c: &Chunk, bytes: &[u8], done: &mut Packed) -> Result<(), Error> {
    let target = dst.join(c.log_file());
    std::fs::write(&target, bytes).map_err(|e| Error::io(target.display(), e))?;
    done.chunks += 1;
    done.positions += c.positions;
    done.games += c.next_game - c.first_game;
    done.log_bytes += bytes.len() as u64;
    Ok(())
}

/// Copies a chunk's game log, its first `log_bytes` (what the manifest vouches for), from `src`
/// to `dst`, and counts the chunk in `done`.
fn copy_log(
    src: &Path,
    dst: &Path,
    c: &Chunk,
    log_bytes: u64,
    done: &mut Packed,
) -> Result<(), Error> {
    let name = c.log_file();
    let bytes = std::fs::read(src.join(&name)).map_err(|e| Error::io(name.as_str(), e))?;
    write_log(dst, c, &bytes[..log_bytes as usize], done)
}

/// Turns the game logs of a data directory (`pack`'s) back into a full data directory `to`:
/// record files, logs and manifest, byte for byte what the generator wrote (packed logs as the
/// plain ones it writes), so that `rookery datagen` goes on in it and training reads it without
/// replaying the games.
pub fn unpack(from: &str, to: &str) -> Result<Packed, Error> {
    let (src, dst) = (Path::new(from), Path::new(to));
    let m = data_manifest(src)?;
    if prepare_out(src, dst)?.is_some() {
        return Err(Error::Invalid(format!(
            "{}: holds a data set already, which this would overwrite; give a new or empty directory",
            dst.display()
        )));
    }
    let mut done = Packed::default();
    let mut m = m;
    for c in &mut m.chunks {
        let Some(log_bytes) = c.log_bytes else {
            return Err(Error::Invalid(format!(
                "{}: chunk {} has no game log",
                src.display(),
                c.file
            )));
        };
        let games = log_chunk_games(src, c, log_bytes)?;
        let records: Vec<Record> = games.iter().flat_map(GameLog::records).collect();
        let target = dst.join(&c.file);
        save(&target.to_string_lossy(), &records)?;
        if log_magic(src, c) == Some(*MAGIC_PACKED) {
            // The generator's own form, which it goes on appending to: a plain log.
            let mut plain = MAGIC.to_vec();
            for g in &games {
                g.encode(&mut plain)?;
            }
            c.log_bytes = Some(plain.len() as u64);
            write_log(dst, c, &plain, &mut done)?;
        } else {
            copy_log(src, dst, c, log_bytes, &mut done)?;
        }
    }
    write_manifest(dst, &m)?;
    Ok(done)
}

/// Writes `records` as one file of records.
pub fn save(path: &str, records: &[Record]) -> Result<(), Error> {
    std::fs::write(path, records_to_bytes(records)).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Chess;

    fn records(n: usize, score: i16) -> Vec<Record> {
        (0..n)
            .map(|i| Record::new(&Chess::default(), i32::from(score) + i as i32, 0.5))
            .collect()
    }

    #[test]
    fn a_run_cut_in_the_middle_of_a_record_goes_on_where_the_manifest_says() {
        let dir = std::env::temp_dir().join(format!("rookery-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let d = dir.to_str().unwrap();
        let (mut w, first) = ChunkWriter::open(d, 5, "test", "abc", "g").unwrap();
        assert_eq!(first, 0);
        w.write_game(0, &records(3, 0), b"g0").unwrap();
        w.write_game(1, &records(2, 10), b"g1").unwrap();
        w.save().unwrap();
        // Game 2 is written but the process dies before the manifest counts it, half a record in.
        w.write_game(2, &records(4, 20), b"g2").unwrap();
        std::mem::forget(w);
        let chunk = dir.join("chunk-000000.bin");
        let len = std::fs::metadata(&chunk).unwrap().len();
        OpenOptions::new()
            .write(true)
            .open(&chunk)
            .unwrap()
            .set_len(len - 16)
            .unwrap();
        let (mut w, first) = ChunkWriter::open(d, 5, "test again", "abc", "g").unwrap();
        assert_eq!(first, 2, "game 2 is played again");
        w.write_game(2, &records(4, 20), b"G2").unwrap();
        drop(w);
        // The log was cut back to what was counted too, its torn game replaced.
        let log = std::fs::read(dir.join("chunk-000000.games")).unwrap();
        assert_eq!(log, [&MAGIC[..], b"g0g1G2"].concat());
        let all = load(d).unwrap();
        assert_eq!(all.len(), 9);
        assert_eq!(all[5].score, 20);
        let m = read_manifest(&dir).unwrap().unwrap();
        assert_eq!(m.runs.len(), 2);
        assert_eq!(m.next_game(5), 3);
        assert_eq!(m.next_game(6), 0);
        // Another seed starts its own chunk.
        let (mut w, first) = ChunkWriter::open(d, 6, "other seed", "abc", "h").unwrap();
        assert_eq!(first, 0);
        w.write_game(0, &records(1, 0), b"x").unwrap();
        drop(w);
        let m = read_manifest(&dir).unwrap().unwrap();
        assert_eq!(m.chunks.len(), 2);
        assert_eq!(load(d).unwrap().len(), 10);
        // The first positions, reading the chunks only as far as needed.
        let scores = |r: Vec<Record>| r.iter().map(|r| r.score).collect::<Vec<_>>();
        let all = scores(load(d).unwrap());
        assert_eq!(scores(load_first(d, 4).unwrap()), all[..4]);
        assert_eq!(scores(load_first(d, 100).unwrap()), all);
        assert!(load_first(d, 0).unwrap().is_empty());
        // A seed's games go on only as they were played: another net (or nodes, openings...)
        // is refused and changes nothing.
        let e = match ChunkWriter::open(d, 5, "other net", "abc", "g2") {
            Err(e) => e.to_string(),
            Ok(_) => panic!("seed 5 went on with other settings"),
        };
        assert!(e.contains("seed 5") && e.contains("played with g;"), "{e}");
        assert_eq!(read_manifest(&dir).unwrap().unwrap().runs.len(), 3);
        // Runs from before the settings were recorded say nothing against a run; it records them.
        let mut m = read_manifest(&dir).unwrap().unwrap();
        m.runs.iter_mut().for_each(|r| r.games = None);
        write_manifest(&dir, &m).unwrap();
        let (w, first) = ChunkWriter::open(d, 5, "other net", "abc", "g2").unwrap();
        assert_eq!(first, 3);
        drop(w);
        assert!(ChunkWriter::open(d, 5, "test", "abc", "g").is_err());
        assert!(ChunkWriter::open(d, 6, "other seed", "abc", "h").is_ok());
        // A manifest counting more than a chunk holds is an error, not a silent loss.
        std::fs::write(dir.join("chunk-000001.bin"), b"").unwrap();
        assert!(ChunkWriter::open(d, 6, "x", "y", "h").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

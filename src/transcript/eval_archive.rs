//! Inspect AI's `.eval` logs (feature `eval-archives`): a zip archive whose members
//! are JSON, one sample a member (`samples/<id>_epoch_<n>.json`) beside the log's
//! header, summaries and journal. Each sample is a run: [`EvalArchive::sample`]
//! gives its JSON, which [`Format::Inspect`](super::Format::Inspect) reads.
//!
//! The zip is read from its central directory (zip64 too), each sample inflated as
//! Inspect compressed it: zstd (method 93, its current releases), deflate (8, its
//! earlier ones) or stored (0). A member's size is the one the directory declares,
//! its CRC-32 checked: a damaged or truncated archive is an error naming the member,
//! never a panic, and never more memory than the member says it holds (up to
//! [`MAX_SAMPLE_LEN`]).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// The largest sample read (uncompressed), the bound of [`super::MAX_DOCUMENT_LEN`] on
/// a whole JSON document.
pub const MAX_SAMPLE_LEN: u64 = super::MAX_DOCUMENT_LEN as u64;

/// Where the samples are in the archive, and what they are named.
const SAMPLES: &str = "samples/";

/// A `.eval` log, opened: its samples' names, each read on demand.
///
/// ```no_run
/// use doneseq::transcript::{EvalArchive, Format, read_transcript};
///
/// let mut log = EvalArchive::open("logs/2025-01-01T00-00-00_task.eval".as_ref())?;
/// for i in 0..log.len() {
///     let name = log.name(i).to_owned();
///     let messages = read_transcript(&log.sample(i)?[..], Format::Inspect)?;
///     println!("{name}: {} messages", messages.len());
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct EvalArchive {
    file: File,
    samples: Vec<Member>,
}

/// A member of the archive, as its central directory describes it.
#[derive(Debug)]
struct Member {
    /// Its name, without `samples/` and `.json`: `<id>_epoch_<n>`.
    name: String,
    method: u16,
    flags: u16,
    crc: u32,
    compressed: u64,
    size: u64,
    /// Where its local header is.
    offset: u64,
}

/// Why an archive or one of its samples could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// The file could not be read.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The file is not a zip archive, or its directory is damaged.
    #[error("not a .eval log (a zip archive): {0}")]
    NotZip(String),
    /// A sample could not be read: damaged, compressed in a way not read, too large.
    #[error("sample {sample}: {message}")]
    Sample {
        /// The sample's name (`<id>_epoch_<n>`).
        sample: String,
        /// What was wrong.
        message: String,
    },
}

impl EvalArchive {
    /// Opens the archive at `path` and reads its directory.
    ///
    /// # Errors
    /// The file cannot be read, or is not a zip archive.
    pub fn open(path: &Path) -> Result<EvalArchive, ArchiveError> {
        let mut file = File::open(path)?;
        let members = directory(&mut file)?;
        let samples = members
            .into_iter()
            .filter(|m| {
                m.name.len() > SAMPLES.len() + ".json".len()
                    && m.name.starts_with(SAMPLES)
                    && m.name.ends_with(".json")
                    && !m.name[SAMPLES.len()..].contains('/')
            })
            .map(|mut m| {
                m.name = m.name[SAMPLES.len()..m.name.len() - ".json".len()].to_owned();
                m
            })
            .collect();
        Ok(EvalArchive { file, samples })
    }

    /// How many samples the log holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether the log holds no sample (an eval that logged none, or was cancelled
    /// before its first).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Sample `i`'s name (`<id>_epoch_<n>`), in the archive's order.
    ///
    /// # Panics
    /// If `i` is not below [`EvalArchive::len`].
    #[must_use]
    pub fn name(&self, i: usize) -> &str {
        &self.samples[i].name
    }

    /// Sample `i`'s JSON, uncompressed and checked against its CRC-32.
    ///
    /// # Errors
    /// The member is damaged, encrypted, compressed in another way than zstd,
    /// deflate or none, or larger than [`MAX_SAMPLE_LEN`].
    ///
    /// # Panics
    /// If `i` is not below [`EvalArchive::len`].
    pub fn sample(&mut self, i: usize) -> Result<Vec<u8>, ArchiveError> {
        let member = &self.samples[i];
        let fail = |message: String| ArchiveError::Sample {
            sample: member.name.clone(),
            message,
        };
        if member.flags & 1 != 0 {
            return Err(fail("it is encrypted".into()));
        }
        if member.size > MAX_SAMPLE_LEN {
            return Err(fail(format!(
                "it is {} bytes, more than the {MAX_SAMPLE_LEN} read",
                member.size
            )));
        }
        let compressed = read_member(&mut self.file, member).map_err(|e| fail(e.to_string()))?;
        // The sizes checked above bound what the decoders write.
        let size = usize::try_from(member.size).map_err(|e| fail(e.to_string()))?;
        let data = match member.method {
            0 => compressed,
            8 => miniz_oxide::inflate::decompress_to_vec_with_limit(&compressed, size)
                .map_err(|e| fail(format!("its deflate stream is damaged ({e})")))?,
            93 => {
                // Frame after frame: Inspect starts a new one every 200 MiB.
                let damaged =
                    |e: &dyn std::fmt::Display| fail(format!("its zstd stream is damaged ({e})"));
                let mut rest = &compressed[..];
                // Room for what the sample says it holds, up to what its compressed
                // bytes could hold (a damaged size reserves no more).
                let mut out = Vec::with_capacity(size.min(compressed.len().saturating_mul(64)));
                while !rest.is_empty() && out.len() <= size {
                    let mut frame = ruzstd::decoding::StreamingDecoder::new(&mut rest)
                        .map_err(|e| damaged(&e))?;
                    let room = (member.size + 1).saturating_sub(out.len() as u64);
                    (&mut frame)
                        .take(room)
                        .read_to_end(&mut out)
                        .map_err(|e| damaged(&e))?;
                }
                out
            }
            other => {
                return Err(fail(format!(
                    "it is compressed by method {other} (read: zstd, 93; deflate, 8; \
                     stored, 0)"
                )));
            }
        };
        if data.len() != size {
            return Err(fail(format!(
                "it holds {} bytes where the archive's directory says {size}",
                data.len()
            )));
        }
        if crc32(&data) != member.crc {
            return Err(fail(
                "its CRC-32 does not match: the archive is damaged".into(),
            ));
        }
        Ok(data)
    }
}

/// The compressed bytes of `member`, after its local header.
fn read_member(file: &mut File, member: &Member) -> Result<Vec<u8>, String> {
    let mut header = [0u8; 30];
    file.seek(SeekFrom::Start(member.offset))
        .and_then(|_| file.read_exact(&mut header))
        .map_err(|e| format!("its header cannot be read ({e})"))?;
    if u32_at(&header, 0) != 0x0403_4b50 {
        return Err("its local header is not where the directory says".into());
    }
    let skip = u64::from(u16_at(&header, 26)) + u64::from(u16_at(&header, 28));
    let length = file.metadata().map_err(|e| e.to_string())?.len();
    let start = member.offset.saturating_add(30 + skip);
    if start.saturating_add(member.compressed) > length {
        return Err("its data runs past the end of the file: the archive is truncated".into());
    }
    file.seek(SeekFrom::Start(start))
        .map_err(|e| e.to_string())?;
    let mut data = Vec::with_capacity(usize::try_from(member.compressed).unwrap_or(0));
    file.take(member.compressed)
        .read_to_end(&mut data)
        .map_err(|e| e.to_string())?;
    Ok(data)
}

/// The members the central directory of the zip archive `file` lists.
fn directory(file: &mut File) -> Result<Vec<Member>, ArchiveError> {
    let not_zip = |m: &str| ArchiveError::NotZip(m.to_owned());
    let length = file.metadata()?.len();
    // The end record (22 bytes, then a comment of up to 65,535) is in the last bytes.
    let tail_len = length.min(22 + 65_535);
    let mut tail = vec![0u8; usize::try_from(tail_len).unwrap_or(0)];
    file.seek(SeekFrom::Start(length - tail_len))?;
    file.read_exact(&mut tail)?;
    let end = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| u32_at(&tail, i) == 0x0605_4b50)
        .ok_or_else(|| not_zip("no end of central directory"))?;
    let mut entries = u64::from(u16_at(&tail, end + 10));
    let mut size = u64::from(u32_at(&tail, end + 12));
    let mut offset = u64::from(u32_at(&tail, end + 16));
    // Zip64: the locator, just before the end record, says where its own end is.
    if end >= 20 && u32_at(&tail, end - 20) == 0x0706_4b50 {
        let at = u64_at(&tail, end - 20 + 8);
        let mut record = [0u8; 56];
        file.seek(SeekFrom::Start(at))
            .and_then(|_| file.read_exact(&mut record))
            .map_err(|_| not_zip("its zip64 end record cannot be read"))?;
        if u32_at(&record, 0) != 0x0606_4b50 {
            return Err(not_zip(
                "its zip64 end record is not where its locator says",
            ));
        }
        entries = u64_at(&record, 32);
        size = u64_at(&record, 40);
        offset = u64_at(&record, 48);
    }
    if offset.saturating_add(size) > length {
        return Err(not_zip(
            "its central directory runs past the end of the file",
        ));
    }
    let mut listing = vec![0u8; usize::try_from(size).map_err(|_| not_zip("too large"))?];
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(&mut listing)?;
    let mut members = Vec::new();
    let mut at = 0usize;
    for _ in 0..entries {
        if listing.len() < at + 46 || u32_at(&listing, at) != 0x0201_4b50 {
            return Err(not_zip("its central directory is damaged"));
        }
        let name_len = usize::from(u16_at(&listing, at + 28));
        let extra_len = usize::from(u16_at(&listing, at + 30));
        let comment_len = usize::from(u16_at(&listing, at + 32));
        let next = at + 46 + name_len + extra_len + comment_len;
        if listing.len() < next {
            return Err(not_zip("its central directory is damaged"));
        }
        let name = String::from_utf8_lossy(&listing[at + 46..at + 46 + name_len]).into_owned();
        let mut member = Member {
            name,
            flags: u16_at(&listing, at + 8),
            method: u16_at(&listing, at + 10),
            crc: u32_at(&listing, at + 16),
            compressed: u64::from(u32_at(&listing, at + 20)),
            size: u64::from(u32_at(&listing, at + 24)),
            offset: u64::from(u32_at(&listing, at + 42)),
        };
        zip64_sizes(
            &mut member,
            &listing[at + 46 + name_len..at + 46 + name_len + extra_len],
        );
        members.push(member);
        at = next;
    }
    Ok(members)
}

/// The sizes and offset a zip64 extra field holds for those the directory entry
/// marks as there (`0xFFFFFFFF`), in its order: size, compressed size, offset.
fn zip64_sizes(member: &mut Member, mut extra: &[u8]) {
    while extra.len() >= 4 {
        let (id, len) = (u16_at(extra, 0), usize::from(u16_at(extra, 2)));
        let Some(data) = extra.get(4..4 + len) else {
            return;
        };
        if id == 1 {
            let mut fields = data.chunks_exact(8).map(|c| u64_at(c, 0));
            for value in [&mut member.size, &mut member.compressed, &mut member.offset] {
                if *value == 0xFFFF_FFFF {
                    match fields.next() {
                        Some(v) => *value = v,
                        None => return,
                    }
                }
            }
        }
        extra = &extra[4 + len..];
    }
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from(u32_at(bytes, at)) | (u64::from(u32_at(bytes, at + 4)) << 32)
}

/// The CRC-32 (IEEE, zip's) of `data`.
fn crc32(data: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0u32;
        while i < 256 {
            let mut c = i;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 == 1 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[i as usize] = c;
            i += 1;
        }
        table
    };
    !data.iter().fold(!0u32, |c, &b| {
        TABLE[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8)
    })
}

#[cfg(test)]
mod tests {
    use super::crc32;

    #[test]
    fn crc32_is_zips() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }
}

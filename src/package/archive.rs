//! Reading a zip archive that nobody vouches for (rule H10): every count
//! and size the archive claims is checked before anything is allocated
//! for it.
//!
//! The zip crate writes our packages, but it does not read them: it
//! allocates for the entry count the end record claims, searches the
//! whole file for other end records when the first does not parse, and
//! keeps one entry of each name. Reading the two forms a package uses
//! (stored and deflated files) is small enough to own, and then each
//! bound is ours and in one place:
//! - the end record is the last one, within its 64 KiB comment of the
//!   end; its entry count is at most [`MAX_ENTRIES`] and its central
//!   directory lies inside the archive, before a byte of it is read;
//! - each entry's name is at most [`crate::assets::MAX_NAME`] bytes, a
//!   plain relative path at most [`MAX_DEPTH`] folders deep, and appears
//!   once;
//! - an entry's data lies inside the archive, is inflated while counted
//!   (never trusting the sizes it claims), and matches its CRC-32.

use std::collections::HashSet;
use std::io::Read as _;

/// The most entries a package may hold.
pub const MAX_ENTRIES: usize = 10_000;

/// The most bytes a package may unpack to, all files together.
pub const MAX_UNPACKED: u64 = 1 << 30;

/// The largest package read, in bytes of the zip.
pub const MAX_ARCHIVE: u64 = 1 << 30;

/// The most folders an entry's path may pass through.
pub const MAX_DEPTH: usize = 32;

const END: u32 = 0x0605_4b50;
const END64: u32 = 0x0606_4b50;
const END64_LOCATOR: u32 = 0x0706_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const LOCAL: u32 = 0x0403_4b50;

/// One entry of the central directory, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its path inside the archive, a folder's without the trailing `/`.
    pub name: String,
    /// Whether it is a folder.
    pub is_dir: bool,
    method: u16,
    crc: u32,
    compressed: u64,
    /// Where its local header starts, from the archive's first byte.
    local: u64,
}

/// A zip archive whose directory has been read and checked.
#[derive(Debug)]
pub struct Archive<'a> {
    bytes: &'a [u8],
    /// The entries, in the directory's order.
    pub entries: Vec<Entry>,
    /// How far the archive's own offsets are from `bytes`' start (a zip
    /// with something put in front of it).
    shift: u64,
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

/// The piece `[at, at + len)` of `bytes`, when it lies inside.
fn piece(bytes: &[u8], at: u64, len: u64) -> Option<&[u8]> {
    let end = at.checked_add(len)?;
    bytes.get(usize::try_from(at).ok()?..usize::try_from(end).ok()?)
}

/// What the end record says: how many entries, and where the directory is.
struct End {
    /// Where the end record (or the zip64 record before it) starts.
    at: u64,
    entries: u64,
    size: u64,
    offset: u64,
}

/// Finds the end record: the last signature whose comment reaches
/// exactly to the end (a comment cannot hide another record).
fn find_end(bytes: &[u8]) -> Result<End, String> {
    let not_zip = || "not a zip archive (no end record)".to_string();
    let last = bytes.len().checked_sub(22).ok_or_else(not_zip)?;
    let first = last.saturating_sub(u16::MAX as usize);
    let at = (first..=last)
        .rev()
        .find(|&at| {
            u32_at(bytes, at) == Some(END)
                && u16_at(bytes, at + 20).is_some_and(|c| at + 22 + c as usize == bytes.len())
        })
        .ok_or_else(not_zip)?;
    let field = |off| u16_at(bytes, at + off).unwrap_or(0);
    if field(4) != 0 || field(6) != 0 || field(8) != field(10) {
        return Err("an archive split over several disks is not a game package".into());
    }
    let mut end = End {
        at: at as u64,
        entries: field(10) as u64,
        size: u32_at(bytes, at + 12).unwrap_or(0) as u64,
        offset: u32_at(bytes, at + 16).unwrap_or(0) as u64,
    };
    // A zip64 archive keeps the real figures in a record the locator
    // just before the end record points at.
    if at >= 20 && u32_at(bytes, at - 20) == Some(END64_LOCATOR) {
        let record = u64_at(bytes, at - 12).unwrap_or(u64::MAX);
        let r = piece(bytes, record, 56)
            .filter(|r| u32_at(r, 0) == Some(END64))
            .ok_or("its zip64 end record is not where its locator says")?;
        end = End {
            at: record,
            entries: u64_at(r, 32).unwrap_or(u64::MAX),
            size: u64_at(r, 40).unwrap_or(u64::MAX),
            offset: u64_at(r, 48).unwrap_or(u64::MAX),
        };
    }
    Ok(end)
}

impl<'a> Archive<'a> {
    /// Reads and checks the directory of the zip archive in `bytes`.
    ///
    /// # Errors
    /// One line without the archive's name: not a zip, too many entries,
    /// a directory outside the archive, an entry that is a link, an
    /// encrypted one, a name that is not a plain path or appears twice.
    pub fn new(bytes: &'a [u8]) -> Result<Archive<'a>, crate::Refusal> {
        let end = find_end(bytes)?;
        if end.entries > MAX_ENTRIES as u64 {
            return Err(refuse!(
                "{} entries; a game holds at most {MAX_ENTRIES} files",
                end.entries
            ));
        }
        // The directory ends where the end record starts; anything before
        // the archive's own offset 0 was put in front of it.
        let start = end
            .at
            .checked_sub(end.size)
            .ok_or("its directory is larger than the archive")?;
        let shift = start
            .checked_sub(end.offset)
            .ok_or("its directory is not where its end record says")?;
        let directory = piece(bytes, start, end.size).ok_or("its directory is cut short")?;
        let mut entries = Vec::with_capacity(end.entries as usize);
        let mut names = HashSet::with_capacity(end.entries as usize);
        let mut at = 0usize;
        for i in 0..end.entries {
            let entry = read_central(directory, &mut at)
                .map_err(|why| format!("entry {}: {why}", i + 1))?;
            if !names.insert(entry.name.clone()) {
                return Err(refuse!(
                    "`{}` is in the archive twice",
                    crate::terminal::escape(&entry.name)
                ));
            }
            entries.push(entry);
        }
        Ok(Archive {
            bytes,
            entries,
            shift,
        })
    }

    /// Inflates entry `i` into `out`, writing at most `budget` bytes, and
    /// returns how many it wrote; `budget + 1` means it holds more.
    ///
    /// # Errors
    /// Its data lies outside the archive, does not inflate, or does not
    /// match its CRC-32; or `out` fails.
    pub fn extract(
        &self,
        i: usize,
        budget: u64,
        out: &mut impl std::io::Write,
    ) -> Result<u64, Extract> {
        let entry = &self.entries[i];
        let local = entry
            .local
            .checked_add(self.shift)
            .ok_or_else(|| Extract::Data("its data is outside the archive".into()))?;
        let header = piece(self.bytes, local, 30)
            .filter(|h| u32_at(h, 0) == Some(LOCAL))
            .ok_or_else(|| {
                Extract::Data("its local header is not where the directory says".into())
            })?;
        let skip =
            30 + u16_at(header, 26).unwrap_or(0) as u64 + u16_at(header, 28).unwrap_or(0) as u64;
        let data = piece(self.bytes, local + skip, entry.compressed)
            .ok_or_else(|| Extract::Data("its data is outside the archive".into()))?;
        let limit = budget.saturating_add(1);
        let mut crc = flate2::Crc::new();
        let mut written = 0u64;
        let mut chunk = [0u8; 64 * 1024];
        let mut reader: Box<dyn std::io::Read> = match entry.method {
            0 => Box::new(data),
            _ => Box::new(flate2::read::DeflateDecoder::new(data)),
        };
        let mut reader = (&mut reader).take(limit);
        loop {
            let n = reader
                .read(&mut chunk)
                .map_err(|e| Extract::Data(format!("its data does not inflate ({e})")))?;
            if n == 0 {
                break;
            }
            crc.update(&chunk[..n]);
            out.write_all(&chunk[..n]).map_err(Extract::Write)?;
            written += n as u64;
        }
        if written <= budget && crc.sum() != entry.crc {
            return Err(Extract::Data(
                "its data does not match its checksum (CRC-32)".into(),
            ));
        }
        Ok(written)
    }
}

/// Why an entry could not be unpacked: the archive's fault, or the
/// disk's.
#[derive(Debug)]
pub enum Extract {
    /// The entry's data is not where it says, does not inflate or does
    /// not match its checksum: the line saying so.
    Data(String),
    /// Writing it out failed.
    Write(std::io::Error),
}

/// Reads the central directory header at `*at`, moving past it.
fn read_central(directory: &[u8], at: &mut usize) -> Result<Entry, String> {
    let h = directory
        .get(*at..*at + 46)
        .filter(|h| u32_at(h, 0) == Some(CENTRAL))
        .ok_or("the directory holds fewer entries than it says")?;
    let field16 = |off| u16_at(h, off).unwrap_or(0);
    let field32 = |off| u32_at(h, off).unwrap_or(0);
    let (name_len, extra_len, comment_len) = (
        field16(28) as usize,
        field16(30) as usize,
        field16(32) as usize,
    );
    if name_len > crate::assets::MAX_NAME {
        return Err(format!(
            "a name of {name_len} bytes (at most {})",
            crate::assets::MAX_NAME
        ));
    }
    let name_at = *at + 46;
    let raw = directory
        .get(name_at..name_at + name_len)
        .ok_or("the directory is cut short")?;
    let extra = directory
        .get(name_at + name_len..name_at + name_len + extra_len)
        .ok_or("the directory is cut short")?;
    *at = name_at + name_len + extra_len + comment_len;
    if *at > directory.len() {
        return Err("the directory is cut short".into());
    }
    let name = String::from_utf8_lossy(raw).into_owned();
    let shown = crate::terminal::escape(&name).into_owned();
    let made_on_unix = field16(4) >> 8 == 3;
    let mode = field32(38) >> 16;
    if made_on_unix && mode & 0o170000 == 0o120000 {
        return Err(format!(
            "`{shown}` is a link; a game package holds files only"
        ));
    }
    if field16(8) & 1 != 0 {
        return Err(format!("`{shown}` is encrypted"));
    }
    let method = field16(10);
    if method != 0 && method != 8 {
        return Err(format!(
            "`{shown}` is compressed by method {method}; a package stores or deflates"
        ));
    }
    let is_dir = name.ends_with('/');
    let trimmed = name.trim_end_matches('/');
    let rel = crate::assets::check_name(trimmed)
        .map_err(|_| format!("`{shown}` is not a path inside the game"))?;
    if rel.components().count() > MAX_DEPTH + 1 {
        return Err(format!("`{shown}` is more than {MAX_DEPTH} folders deep"));
    }
    let (mut compressed, mut local) = (field32(20) as u64, field32(42) as u64);
    // Sizes and offsets too large for 32 bits are in the zip64 extra
    // field, in this order, only those that are 0xffffffff here.
    let mut pos = 0;
    while pos + 4 <= extra.len() {
        let (id, len) = (
            u16_at(extra, pos).unwrap_or(0),
            u16_at(extra, pos + 2).unwrap_or(0) as usize,
        );
        let body = extra.get(pos + 4..pos + 4 + len).unwrap_or_default();
        if id == 1 {
            let mut values = body.chunks_exact(8).map(|c| u64_at(c, 0).unwrap_or(0));
            if field32(24) == u32::MAX {
                values.next();
            }
            if field32(20) == u32::MAX {
                compressed = values.next().ok_or("its zip64 sizes are missing")?;
            }
            if field32(42) == u32::MAX {
                local = values.next().ok_or("its zip64 offset is missing")?;
            }
        }
        pos += 4 + len;
    }
    Ok(Entry {
        name: trimmed.to_string(),
        is_dir,
        method,
        crc: field32(16),
        compressed,
        local,
    })
}

/// Says whether `bytes` read as a package's directory, for the fuzz
/// target: the entries' names, or why not.
///
/// # Errors
/// As [`Archive::new`].
pub fn names(bytes: &[u8]) -> Result<Vec<String>, crate::Refusal> {
    Archive::new(bytes).map(|a| a.entries.into_iter().map(|e| e.name).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    /// A zip of `entries`, stored (so tests can find their bytes in it),
    /// but for names ending `.z`, which are deflated.
    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, bytes) in entries {
            let method = if name.ends_with(".z") {
                zip::CompressionMethod::Deflated
            } else {
                zip::CompressionMethod::Stored
            };
            let options = zip::write::SimpleFileOptions::default().compression_method(method);
            writer.start_file(*name, options).unwrap();
            writer.write_all(bytes).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    /// Where the end record of `zip` starts (it has no comment).
    fn end_of(zip: &[u8]) -> usize {
        zip.len() - 22
    }

    #[test]
    fn what_the_zip_crate_writes_reads_back() {
        let many = [b'x'; 5000];
        let zip = zip_of(&[
            ("main.luau", b"return {}"),
            ("a/b.txt", b"hello"),
            ("c.z", &many),
        ]);
        let archive = Archive::new(&zip).unwrap();
        let names: Vec<_> = archive.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["main.luau", "a/b.txt", "c.z"]);
        let mut out = Vec::new();
        assert_eq!(archive.extract(1, 100, &mut out).unwrap(), 5);
        assert_eq!(out, b"hello");
        let mut out = Vec::new();
        assert_eq!(archive.extract(2, 10_000, &mut out).unwrap(), 5000);
        assert_eq!(out, many);
        assert!(zip.len() < 1000, "it was deflated");
        // Past the budget it stops one byte over, whatever it holds.
        assert_eq!(archive.extract(2, 100, &mut Vec::new()).unwrap(), 101);
    }

    // rule: H10
    #[test]
    fn a_directory_claiming_millions_of_entries_is_refused_before_it_is_read() {
        let mut zip = zip_of(&[("main.luau", b"return {}")]);
        let end = end_of(&zip);
        zip[end + 8..end + 12].copy_from_slice(&[0xff, 0xff, 0xff, 0xff]);
        let err = Archive::new(&zip).unwrap_err();
        assert!(err.contains("65535 entries"), "{err}");
        // The same claim through a zip64 record: 2^40 entries.
        let mut zip = zip_of(&[("main.luau", b"return {}")]);
        let end = end_of(&zip);
        let record = end as u64;
        let mut r = Vec::new();
        r.extend_from_slice(&END64.to_le_bytes());
        r.extend_from_slice(&44u64.to_le_bytes());
        r.extend_from_slice(&[0; 12]);
        r.extend_from_slice(&(1u64 << 40).to_le_bytes());
        r.extend_from_slice(&(1u64 << 40).to_le_bytes());
        r.extend_from_slice(&[0; 16]);
        let mut locator = Vec::new();
        locator.extend_from_slice(&END64_LOCATOR.to_le_bytes());
        locator.extend_from_slice(&0u32.to_le_bytes());
        locator.extend_from_slice(&record.to_le_bytes());
        locator.extend_from_slice(&1u32.to_le_bytes());
        let tail = zip.split_off(end);
        zip.extend_from_slice(&r);
        zip.extend_from_slice(&locator);
        zip.extend_from_slice(&tail);
        let err = Archive::new(&zip).unwrap_err();
        assert!(err.contains("1099511627776 entries"), "{err}");
    }

    #[test]
    fn one_name_twice_is_refused_however_the_writer_let_it_through() {
        let mut zip = zip_of(&[("main.luau", b"return 1"), ("main.lua_", b"return 2")]);
        // Rename the second entry in both headers to `main.luau`.
        let at = zip.windows(9).rposition(|w| w == b"main.lua_").unwrap();
        zip[at + 8] = b'u';
        let at = zip.windows(9).position(|w| w == b"main.lua_").unwrap();
        zip[at + 8] = b'u';
        let err = Archive::new(&zip).unwrap_err();
        assert!(err.contains("`main.luau` is in the archive twice"), "{err}");
    }

    #[test]
    fn a_path_deeper_than_the_bound_is_refused() {
        let deep = "d/".repeat(MAX_DEPTH + 1) + "main.luau";
        let zip = zip_of(&[(deep.as_str(), b"x")]);
        assert!(Archive::new(&zip).unwrap_err().contains("folders deep"));
        let ok = "d/".repeat(MAX_DEPTH) + "main.luau";
        assert!(Archive::new(&zip_of(&[(ok.as_str(), b"x")])).is_ok());
    }

    #[test]
    fn damaged_archives_are_refused_never_panic() {
        let zip = zip_of(&[("main.luau", b"return {}"), ("b.txt", &[7; 300])]);
        // Every byte of the archive replaced by 0xff in turn, and the
        // archive cut at every length.
        for i in 0..zip.len() {
            let mut bad = zip.clone();
            bad[i] = 0xff;
            if let Ok(archive) = Archive::new(&bad) {
                for e in 0..archive.entries.len() {
                    let _ = archive.extract(e, 1 << 20, &mut Vec::new());
                }
            }
            let _ = Archive::new(&zip[..i]);
        }
        let mut bad = zip.clone();
        let at = bad.windows(9).position(|w| w == b"return {}").unwrap();
        bad[at] = b'R';
        let archive = Archive::new(&bad).unwrap();
        let Err(Extract::Data(err)) = archive.extract(0, 100, &mut Vec::new()) else {
            panic!("the data is the archive's fault");
        };
        assert!(err.contains("CRC-32"), "{err}");
    }

    #[test]
    fn an_end_record_in_a_comment_is_held_to_the_same_bounds() {
        // The record read is the last whose comment reaches the end; one
        // planted in the comment claims 65535 entries and is refused
        // before anything is read for it.
        let mut zip = zip_of(&[("main.luau", b"return {}")]);
        let mut fake = END.to_le_bytes().to_vec();
        fake.extend_from_slice(&[0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
        fake.extend_from_slice(&[0; 10]);
        let end = end_of(&zip);
        zip[end + 20..end + 22].copy_from_slice(&(fake.len() as u16).to_le_bytes());
        zip.extend_from_slice(&fake);
        let err = Archive::new(&zip).unwrap_err();
        assert!(err.contains("65535 entries"), "{err}");
    }
}

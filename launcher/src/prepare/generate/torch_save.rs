//! The bytes `torch.save(array, file)` writes for a 2-D float64 NumPy array,
//! without Python: PyTorch's zip container (stored entries under `archive/`:
//! `data.pkl`, `.format_version`, `byteorder`, `version`,
//! `.data/serialization_id`) around the protocol-2 pickle NumPy gives an
//! array (`numpy.core.multiarray._reconstruct`, then the state: shape, dtype
//! `<f8`, C order, the raw little-endian bytes through `_codecs.encode(...,
//! 'latin1')`). The pickle's opcodes, memo included, are the ones Python's
//! pickler writes for the array; the module name is NumPy 1's, which NumPy 2
//! still loads. `torch.load` returns the array (a `numpy.ndarray`, as
//! `torch.from_numpy` takes), where loading NumPy objects is allowed (docs/data.md).

/// The file `torch.save` writes for the `rows` x `cols` array `values` (row-major).
/// `id` stands for the random serialization id PyTorch writes (40 digits).
pub fn float64_array(rows: usize, cols: usize, values: &[f64], id: u64) -> Vec<u8> {
    assert_eq!(values.len(), rows * cols, "an array's values fill its shape");
    let records: [(&str, Vec<u8>); 5] = [
        ("data.pkl", array_pickle(rows, cols, values)),
        (".format_version", b"1".to_vec()),
        ("byteorder", b"little".to_vec()),
        ("version", b"3\n".to_vec()),
        (".data/serialization_id", format!("{id:020}{:020}", id.wrapping_mul(0x9e37_79b9_7f4a_7c15)).into_bytes()),
    ];
    stored_zip(records.iter().map(|(name, bytes)| (format!("archive/{name}"), bytes.as_slice())))
}

/// Pickle opcodes (protocol 2).
mod op {
    pub const PROTO: u8 = 0x80;
    pub const GLOBAL: u8 = b'c';
    pub const BINPUT: u8 = b'q';
    pub const BINGET: u8 = b'h';
    pub const BININT1: u8 = b'K';
    pub const BININT2: u8 = b'M';
    pub const BININT: u8 = b'J';
    pub const BINUNICODE: u8 = b'X';
    pub const NONE: u8 = b'N';
    pub const NEWTRUE: u8 = 0x88;
    pub const NEWFALSE: u8 = 0x89;
    pub const MARK: u8 = b'(';
    pub const TUPLE: u8 = b't';
    pub const TUPLE1: u8 = 0x85;
    pub const TUPLE2: u8 = 0x86;
    pub const TUPLE3: u8 = 0x87;
    pub const REDUCE: u8 = b'R';
    pub const BUILD: u8 = b'b';
    pub const STOP: u8 = b'.';
}

/// A protocol-2 pickle, memoizing as Python's pickler does.
#[derive(Default)]
struct Pickle {
    out: Vec<u8>,
    memo: u8,
}

impl Pickle {
    fn op(&mut self, op: u8) -> &mut Self {
        self.out.push(op);
        self
    }

    /// Stores the object just made in the memo (`BINPUT`).
    fn put(&mut self) -> &mut Self {
        self.out.extend([op::BINPUT, self.memo]);
        self.memo += 1;
        self
    }

    fn global(&mut self, module: &str, name: &str) -> &mut Self {
        self.op(op::GLOBAL);
        self.out.extend_from_slice(format!("{module}\n{name}\n").as_bytes());
        self.put()
    }

    fn int(&mut self, value: i64) -> &mut Self {
        match value {
            0..=0xff => self.out.extend([op::BININT1, value as u8]),
            0x100..=0xffff => {
                self.out.push(op::BININT2);
                self.out.extend((value as u16).to_le_bytes());
            }
            _ => {
                self.out.push(op::BININT);
                self.out.extend((value as i32).to_le_bytes());
            }
        }
        self
    }

    fn text(&mut self, text: &str) -> &mut Self {
        self.out.push(op::BINUNICODE);
        self.out.extend((text.len() as u32).to_le_bytes());
        self.out.extend_from_slice(text.as_bytes());
        self.put()
    }
}

/// The pickle of a `rows` x `cols` float64 array, as NumPy reduces it.
fn array_pickle(rows: usize, cols: usize, values: &[f64]) -> Vec<u8> {
    // Bytes go through `_codecs.encode(text, 'latin1')` in protocol 2: each
    // byte is the character of the same number.
    let raw: String = values.iter().flat_map(|v| v.to_le_bytes()).map(char::from).collect();
    let mut p = Pickle::default();
    p.out.extend([op::PROTO, 2]);
    p.global("numpy.core.multiarray", "_reconstruct"); // memo 0
    p.global("numpy", "ndarray"); // 1
    p.int(0).op(op::TUPLE1).put(); // 2: (0,)
    p.global("_codecs", "encode"); // 3
    p.text("b").text("latin1"); // 4, 5
    p.op(op::TUPLE2).put().op(op::REDUCE).put(); // 6, 7: b'b'
    p.op(op::TUPLE3).put().op(op::REDUCE).put(); // 8, 9: the empty array
    p.op(op::MARK).int(1); // state version
    p.int(rows as i64).int(cols as i64).op(op::TUPLE2).put(); // 10: shape
    p.global("numpy", "dtype").text("f8"); // 11, 12
    p.op(op::NEWFALSE).op(op::NEWTRUE).op(op::TUPLE3).put().op(op::REDUCE).put(); // 13, 14
    p.op(op::MARK).int(3).text("<"); // dtype state; 15
    p.op(op::NONE).op(op::NONE).op(op::NONE).int(-1).int(-1).int(0).op(op::TUPLE).put().op(op::BUILD); // 16
    p.op(op::NEWFALSE); // C order
    p.out.extend([op::BINGET, 3]); // _codecs.encode
    p.text(&raw); // 17
    p.out.extend([op::BINGET, 5]); // 'latin1'
    p.op(op::TUPLE2).put().op(op::REDUCE).put(); // 18, 19
    p.op(op::TUPLE).put().op(op::BUILD).op(op::STOP); // 20
    p.out
}

/// A zip archive of `records`, stored (uncompressed), as PyTorch writes them.
fn stored_zip<'a>(records: impl Iterator<Item = (String, &'a [u8])>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    let mut count = 0u16;
    for (name, bytes) in records {
        let offset = out.len() as u32;
        let crc = crc32fast::hash(bytes);
        // Version needed, flags, method (stored), time, date, CRC, sizes, name length, extra length.
        let fields = |head: &mut Vec<u8>| {
            head.extend(20u16.to_le_bytes());
            head.extend([0u8; 8]);
            head.extend(crc.to_le_bytes());
            head.extend((bytes.len() as u32).to_le_bytes());
            head.extend((bytes.len() as u32).to_le_bytes());
            head.extend((name.len() as u16).to_le_bytes());
            head.extend(0u16.to_le_bytes());
        };
        out.extend(0x0403_4b50u32.to_le_bytes());
        fields(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(bytes);
        central.extend(0x0201_4b50u32.to_le_bytes());
        central.extend(20u16.to_le_bytes()); // version made by
        fields(&mut central);
        central.extend([0u8; 10]); // comment length, disk, internal and external attributes
        central.extend(offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
        count += 1;
    }
    let (at, size) = (out.len() as u32, central.len() as u32);
    out.extend(central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0u8; 4]); // this disk, the directory's disk
    out.extend(count.to_le_bytes());
    out.extend(count.to_le_bytes());
    out.extend(size.to_le_bytes());
    out.extend(at.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(bytes: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn the_archive_lists_pytorchs_records_and_the_pickle_holds_the_raw_values() {
        let values = [0.0, 1.5, -2.0, 0.25, 1e-3, 7.0];
        let file = float64_array(2, 3, &values, 11);
        // The end record: five entries, and the directory where it says.
        let end = file.len() - 22;
        assert_eq!(u32_at(&file, end), 0x0605_4b50);
        assert_eq!(u16::from_le_bytes([file[end + 8], file[end + 9]]), 5);
        let directory = u32_at(&file, end + 16) as usize;
        assert_eq!(u32_at(&file, directory), 0x0201_4b50);
        assert_eq!(&file[directory + 46..directory + 62], b"archive/data.pkl");
        assert_eq!(u32_at(&file, directory + 42), 0, "its local header's offset");
        // The first entry: archive/data.pkl, stored, with its CRC.
        assert_eq!(u32_at(&file, 0), 0x0403_4b50);
        let (size, name_len) = (u32_at(&file, 18) as usize, u16::from_le_bytes([file[26], file[27]]) as usize);
        assert_eq!(&file[30..30 + name_len], b"archive/data.pkl");
        let pickle = &file[30 + name_len..30 + name_len + size];
        assert_eq!(u32_at(&file, 14), crc32fast::hash(pickle));
        assert_eq!(&pickle[..2], &[op::PROTO, 2]);
        assert_eq!(pickle[pickle.len() - 1], op::STOP);
        // The raw bytes, each as a latin-1 character in UTF-8.
        let raw: String = values.iter().flat_map(|v| v.to_le_bytes()).map(char::from).collect();
        let text = String::from_utf8_lossy(pickle);
        assert!(text.contains(&raw), "the values are in the pickle");
        assert!(text.contains("numpy.core.multiarray\n_reconstruct\n") && text.contains("f8"));
    }
}

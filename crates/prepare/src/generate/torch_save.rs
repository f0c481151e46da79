//! The bytes `torch.save` writes, without Python, in the format of the
//! PyTorch the original suite ran on (1.3): the legacy format, one
//! protocol-2 pickle after another (the magic number, the format version
//! 1001, the system's sizes, the object, the list of storage keys), then
//! each storage's element count and raw little-endian bytes. Every PyTorch
//! since loads it (the zip container that 1.6 made the default is not
//! readable by 1.3). The objects:
//!
//! - a 2-D float64 NumPy array, pickled as NumPy reduces it
//!   (`numpy.core.multiarray._reconstruct`, then shape, dtype `<f8`, C order
//!   and the raw bytes through `_codecs.encode(..., 'latin1')`);
//! - a tuple of CPU tensors (`torch._utils._rebuild_tensor_v2` of a
//!   persistent storage), as torchvision saved MNIST's `(images, labels)`.
//!
//! The opcodes, memo included, are the ones Python's pickler writes: for the
//! array the file is byte for byte the one `torch.save` writes, but for the
//! module name (NumPy 1's, which NumPy 2 still loads); for tensors, but for
//! the storage keys (PyTorch names them by memory address).

/// The first pickle of every file: `0x1950a86a20f9469cfc6c` (a 10-byte long).
const MAGIC: [u8; 10] = [0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19];
/// The legacy format's version.
const PROTOCOL_VERSION: i64 = 1001;

/// Pickle opcodes (protocol 2).
mod op {
    pub const PROTO: u8 = 0x80;
    pub const GLOBAL: u8 = b'c';
    pub const BINPUT: u8 = b'q';
    pub const BINGET: u8 = b'h';
    pub const BININT1: u8 = b'K';
    pub const BININT2: u8 = b'M';
    pub const BININT: u8 = b'J';
    pub const LONG1: u8 = 0x8a;
    pub const BINUNICODE: u8 = b'X';
    pub const NONE: u8 = b'N';
    pub const NEWTRUE: u8 = 0x88;
    pub const NEWFALSE: u8 = 0x89;
    pub const MARK: u8 = b'(';
    pub const TUPLE: u8 = b't';
    pub const EMPTY_TUPLE: u8 = b')';
    pub const TUPLE1: u8 = 0x85;
    pub const TUPLE2: u8 = 0x86;
    pub const TUPLE3: u8 = 0x87;
    pub const EMPTY_LIST: u8 = b']';
    pub const APPEND: u8 = b'a';
    pub const APPENDS: u8 = b'e';
    pub const EMPTY_DICT: u8 = b'}';
    pub const SETITEMS: u8 = b'u';
    pub const REDUCE: u8 = b'R';
    pub const BUILD: u8 = b'b';
    pub const BINPERSID: u8 = b'Q';
    pub const STOP: u8 = b'.';
}

/// One protocol-2 pickle, memoizing as Python's pickler does.
struct Pickle {
    out: Vec<u8>,
    memo: u8,
}

impl Pickle {
    fn new() -> Self {
        Pickle { out: vec![op::PROTO, 2], memo: 0 }
    }

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

    /// The object memoized as `index` again (`BINGET`).
    fn get(&mut self, index: u8) -> &mut Self {
        self.out.extend([op::BINGET, index]);
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
                self.out.extend((i32::try_from(value).expect("a 32-bit int")).to_le_bytes());
            }
        }
        self
    }

    fn ints(&mut self, values: &[i64]) -> &mut Self {
        values.iter().for_each(|&v| {
            self.int(v);
        });
        match values.len() {
            1 => self.op(op::TUPLE1),
            2 => self.op(op::TUPLE2),
            3 => self.op(op::TUPLE3),
            n => panic!("a tuple of {n} ints"),
        }
        .put()
    }

    fn text(&mut self, text: &str) -> &mut Self {
        self.out.push(op::BINUNICODE);
        self.out.extend((text.len() as u32).to_le_bytes());
        self.out.extend_from_slice(text.as_bytes());
        self.put()
    }

    fn done(mut self) -> Vec<u8> {
        self.out.push(op::STOP);
        self.out
    }
}

/// The pickles before the object: the magic number, the format version and
/// the system's sizes (little-endian; short 2, int 4, long 4 bytes).
fn preamble() -> Vec<u8> {
    let mut magic = Pickle::new();
    magic.op(op::LONG1).op(MAGIC.len() as u8).out.extend(MAGIC);
    let mut version = Pickle::new();
    version.int(PROTOCOL_VERSION);
    let mut info = Pickle::new();
    info.op(op::EMPTY_DICT).put().op(op::MARK);
    info.text("protocol_version").int(PROTOCOL_VERSION);
    info.text("little_endian").op(op::NEWTRUE);
    info.text("type_sizes").op(op::EMPTY_DICT).put().op(op::MARK);
    info.text("short").int(2).text("int").int(4).text("long").int(4);
    info.op(op::SETITEMS).op(op::SETITEMS);
    [magic.done(), version.done(), info.done()].concat()
}

/// The list of storage keys, as the pickler writes a list of strings.
fn keys(keys: &[String]) -> Vec<u8> {
    let mut p = Pickle::new();
    p.op(op::EMPTY_LIST).put();
    match keys {
        [] => {}
        [one] => {
            p.text(one).op(op::APPEND);
        }
        many => {
            p.op(op::MARK);
            many.iter().for_each(|k| {
                p.text(k);
            });
            p.op(op::APPENDS);
        }
    }
    p.done()
}

/// The file `torch.save` writes for the `rows` x `cols` float64 NumPy array
/// `values` (row-major).
pub fn float64_array(rows: usize, cols: usize, values: &[f64]) -> Vec<u8> {
    assert_eq!(values.len(), rows * cols, "an array's values fill its shape");
    // Bytes go through `_codecs.encode(text, 'latin1')` in protocol 2: each
    // byte is the character of the same number.
    let raw: String = values.iter().flat_map(|v| v.to_le_bytes()).map(char::from).collect();
    let mut p = Pickle::new();
    p.global("numpy.core.multiarray", "_reconstruct"); // memo 0
    p.global("numpy", "ndarray"); // 1
    p.ints(&[0]); // 2: (0,)
    p.global("_codecs", "encode"); // 3
    p.text("b").text("latin1"); // 4, 5
    p.op(op::TUPLE2).put().op(op::REDUCE).put(); // 6, 7: b'b'
    p.op(op::TUPLE3).put().op(op::REDUCE).put(); // 8, 9: the empty array
    p.op(op::MARK).int(1); // the state's version
    p.ints(&[rows as i64, cols as i64]); // 10: shape
    p.global("numpy", "dtype").text("f8"); // 11, 12
    p.op(op::NEWFALSE).op(op::NEWTRUE).op(op::TUPLE3).put().op(op::REDUCE).put(); // 13, 14
    p.op(op::MARK).int(3).text("<"); // the dtype's state; 15
    p.op(op::NONE).op(op::NONE).op(op::NONE).int(-1).int(-1).int(0).op(op::TUPLE).put().op(op::BUILD); // 16
    p.op(op::NEWFALSE); // C order
    p.get(3).text(&raw).get(5); // _codecs.encode(raw, 'latin1'); 17
    p.op(op::TUPLE2).put().op(op::REDUCE).put(); // 18, 19
    p.op(op::TUPLE).put().op(op::BUILD); // 20
    [preamble(), p.done(), keys(&[])].concat()
}

/// The element type of a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    /// `torch.uint8` (`ByteStorage`).
    U8,
    /// `torch.int64` (`LongStorage`).
    I64,
}

impl Element {
    fn storage(self) -> &'static str {
        match self {
            Element::U8 => "ByteStorage",
            Element::I64 => "LongStorage",
        }
    }
}

/// A contiguous CPU tensor: its element type and shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    /// Element type.
    pub element: Element,
    /// Shape (1 to 3 dimensions).
    pub shape: Vec<usize>,
}

impl Tensor {
    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }
}

/// The start of the file `torch.save` writes for a tuple of `tensors` (2 or
/// 3), each in a storage of its own: every pickle, then the first storage's
/// element count. The file goes on with that storage's bytes, then
/// [`storage_head`] and the bytes of each next one.
pub fn tensor_tuple_head(tensors: &[Tensor]) -> Vec<u8> {
    let names: Vec<String> = (0..tensors.len()).map(|i| i.to_string()).collect();
    let mut p = Pickle::new();
    // Memo slots of the objects pickled once and referred to after.
    let (mut rebuild, mut storage, mut cpu, mut ordered) = (None, None, None, None);
    for (tensor, key) in tensors.iter().zip(&names) {
        match rebuild {
            None => rebuild = Some(p.global("torch._utils", "_rebuild_tensor_v2").memo - 1),
            Some(at) => _ = p.get(at),
        }
        p.op(op::MARK).op(op::MARK);
        match storage {
            None => storage = Some(p.text("storage").memo - 1),
            Some(at) => _ = p.get(at),
        }
        p.global("torch", tensor.element.storage()).text(key);
        match cpu {
            None => cpu = Some(p.text("cpu").memo - 1),
            Some(at) => _ = p.get(at),
        }
        p.int(tensor.numel() as i64).op(op::NONE).op(op::TUPLE).put().op(op::BINPERSID);
        let shape: Vec<i64> = tensor.shape.iter().map(|&d| d as i64).collect();
        let strides: Vec<i64> = (0..shape.len()).map(|d| shape[d + 1..].iter().product()).collect();
        p.int(0).ints(&shape).ints(&strides).op(op::NEWFALSE);
        match ordered {
            None => ordered = Some(p.global("collections", "OrderedDict").memo - 1),
            Some(at) => _ = p.get(at),
        }
        p.op(op::EMPTY_TUPLE).op(op::REDUCE).put().op(op::TUPLE).put().op(op::REDUCE).put();
    }
    match tensors.len() {
        2 => p.op(op::TUPLE2),
        3 => p.op(op::TUPLE3),
        n => panic!("a tuple of {n} tensors"),
    }
    .put();
    let first = tensors.first().map_or(0, Tensor::numel);
    [preamble(), p.done(), keys(&names), storage_head(first)].concat()
}

/// What precedes a storage's bytes: its element count (8 bytes, little-endian).
pub fn storage_head(numel: usize) -> Vec<u8> {
    (numel as u64).to_le_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_file_is_the_preamble_the_array_and_no_storage() {
        let values = [0.0, 1.5, -2.0, 0.25, 1e-3, 7.0];
        let file = float64_array(2, 3, &values);
        // The magic number, as Python pickles 0x1950a86a20f9469cfc6c.
        assert_eq!(&file[..15], b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.");
        assert_eq!(&file[15..21], b"\x80\x02M\xe9\x03.", "the format version 1001");
        let text = String::from_utf8_lossy(&file);
        assert!(text.contains("type_sizes") && text.contains("numpy.core.multiarray\n_reconstruct\n"));
        // The raw bytes, each as a latin-1 character in UTF-8.
        let raw: String = values.iter().flat_map(|v| v.to_le_bytes()).map(char::from).collect();
        assert!(text.contains(&raw), "the values are in the pickle");
        assert!(file.ends_with(b".\x80\x02]q\x00."), "an empty list of storages ends the file");
    }

    #[test]
    fn a_tensor_tuple_names_its_storages_then_counts_the_first() {
        let tensors =
            [Tensor { element: Element::U8, shape: vec![5, 28, 28] }, Tensor { element: Element::I64, shape: vec![5] }];
        let head = tensor_tuple_head(&tensors);
        let text = String::from_utf8_lossy(&head);
        assert!(text.contains("torch\nByteStorage\n") && text.contains("torch\nLongStorage\n"));
        // The strides of (5, 28, 28), and the two keys pickled as a list.
        assert!(head.windows(8).any(|w| w == b"M\x10\x03K\x1cK\x01\x87"), "the strides (784, 28, 1)");
        let keys = b"]q\x00(X\x01\x00\x00\x000q\x01X\x01\x00\x00\x001q\x02e.";
        assert!(head.ends_with(&[keys.as_slice(), &[0x50, 0x0f, 0, 0, 0, 0, 0, 0]].concat()), "then 3,920 bytes");
        assert_eq!(storage_head(5), [5, 0, 0, 0, 0, 0, 0, 0]);
    }
}
